from django.http import HttpRequest

from factcheck.accounts.roles import Role, role_of


def roles(request: HttpRequest) -> dict[str, object]:
    role = role_of(request.user)
    return {"user_role": role.name.lower(), "is_editor": role >= Role.EDITOR, "is_admin": role >= Role.ADMIN}
