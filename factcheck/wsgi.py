import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "factcheck.settings")
# The settings limit how long the web's database statements may run (workers are not limited).
os.environ["FACTCHECK_PROCESS"] = "web"

application = get_wsgi_application()
