from django import forms


class LinkForm(forms.Form):
    url = forms.URLField(
        label="Article link", max_length=2000, assume_scheme="https", widget=forms.URLInput(attrs={"placeholder": "https://…", "autocomplete": "off"})
    )
