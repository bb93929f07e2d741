"""Both template engines and the one page layout they share.

The triage queue is rendered by Jinja2 (templates/jinja2/): it is the page every reviewer
reloads all day, and the Django engine cost about three times as much CPU for the same
markup. Every other page stays a Django template. The page frame (head, header, messages)
exists once, as templates/jinja2/layout.html: Jinja2 pages extend it, and the Django
templates' base.html hands its blocks to it through the `{% layout %}` tag below.
"""

from __future__ import annotations

from typing import Any, cast

from django import template
from django.http import HttpRequest
from django.middleware.csrf import get_token
from django.template import engines
from django.template.backends.jinja2 import Jinja2
from django.template.base import Parser, Token
from django.template.context import Context
from django.templatetags.static import static
from django.urls import reverse
from jinja2 import Environment
from markupsafe import Markup

from factcheck.keys import key_attrs, key_doc, page_keys


def thousands(value: Any) -> str:
    """A count as people read it: 15,404, not 15404. Anything not a whole number is printed
    as it is (a count not known yet, "?")."""
    if isinstance(value, bool) or not isinstance(value, int):
        try:
            value = int(str(value))
        except ValueError:
            return str(value)
    return f"{value:,}"


def url(name: str, *args: Any) -> str:
    return reverse(name, args=args)


def environment(**options: Any) -> Environment:
    env = Environment(**options)
    env.globals.update(url=url, static=static, key=key_attrs, key_doc=key_doc, page_keys=page_keys)
    env.filters["thousands"] = thousands
    return env


def csrf(request: HttpRequest) -> dict[str, str]:
    """One CSRF token a page, as the Django engine gives. Django's Jinja2 backend passes a lazy
    value that masks a new token each time it is printed: 95 times a queue page, ~6 ms."""
    token = get_token(request)
    field = Markup('<input type="hidden" name="csrfmiddlewaretoken" value="{}">').format(token)
    return {"csrf_token": token, "csrf_input": field}


register = template.Library()


class LayoutNode(template.Node):
    child_nodelists = ("title", "content")

    def __init__(self, title: template.NodeList, content: template.NodeList) -> None:
        self.title, self.content = title, content

    def render(self, context: Context) -> str:
        layout = cast(Jinja2, engines["jinja2"]).env.get_template("layout.html")  # settings.TEMPLATES names it
        names = ("request", "user", "user_role", "is_editor", "is_admin", "messages", "csrf_token", "work_counts", "organisation_banner")
        values = {name: context[name] for name in names if name in context}
        # Both parts were rendered (and escaped) by the Django engine.
        values.update(title=Markup(self.title.render(context)), content=Markup(self.content.render(context)))  # noqa: S704
        return layout.render(values)


@register.tag
def layout(parser: Parser, token: Token) -> LayoutNode:
    """`{% layout %}TITLE{% layout_content %}CONTENT{% endlayout %}`: the page in layout.html."""
    title = parser.parse(("layout_content",))
    parser.delete_first_token()
    content = parser.parse(("endlayout",))
    parser.delete_first_token()
    return LayoutNode(title, content)
