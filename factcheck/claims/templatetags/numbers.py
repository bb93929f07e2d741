"""{% load numbers %}: counts with thousands separators, as the Jinja2 pages print them."""

from django import template

from factcheck.templating import thousands

register = template.Library()
register.filter("thousands", thousands)
