"""Response shapes. Claim and cluster rows are dicts from values() (see selectors), verdicts and
evidence are model instances; every field is read-only."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from factcheck.claims.models import Claim, Evidence, Verdict

QUANTITIES_SCHEMA = {
    "type": "array",
    "description": (
        "Parsed quantities: value, unit or counted noun, hedge, and their span in the sentence. Parsed since issue 29 "
        "(older rows lack them): hedge_text, the hedge as written (\"nearly\"); noun, the whole counted noun (\"ethnic "
        "minority MPs\"); low, high and magnitude for a vague magnitude (\"tens of thousands\": 20000 to under 100000)."
    ),
    "items": {
        "type": "object",
        "properties": {
            "text": {"type": "string"},
            "start": {"type": "integer"},
            "end": {"type": "integer"},
            "value": {"type": "number"},
            "unit": {"type": "string"},
            "hedge": {"type": "string"},
            "hedge_text": {"type": "string"},
            "noun": {"type": "string"},
            "low": {"type": "number", "nullable": True},
            "high": {"type": "number", "nullable": True},
            "magnitude": {"type": "string"},
        },
    },
}
PRIORITY_PARTS_SCHEMA = {
    "type": "object",
    "description": (
        "The priority's parts in points: checkworthiness, public_interest, source, specificity, type, routine (negative), "
        "spread, recency; outlets (count), topic (the public-interest topic, or empty) and weights_version (the ranking "
        "weights they were computed with). Claims ranked by an older formula may lack some."
    ),
    "additionalProperties": {"oneOf": [{"type": "number"}, {"type": "string"}]},
}


@extend_schema_field(QUANTITIES_SCHEMA)
class QuantitiesField(serializers.JSONField):
    pass


@extend_schema_field(PRIORITY_PARTS_SCHEMA)
class PriorityPartsField(serializers.JSONField):
    pass


class ArticleRefSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="article_id")
    title = serializers.CharField(source="article_title")
    url = serializers.CharField(source="article_url", help_text="Empty when unknown.")
    published_at = serializers.DateTimeField(source="article_published_at", allow_null=True)
    outlet_id = serializers.IntegerField(source="article_outlet_id", allow_null=True)
    outlet = serializers.CharField(source="outlet_name", allow_null=True)


class ClaimSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    claim_key = serializers.CharField(help_text="sha1(article content hash:start:end); stable across re-runs.")
    sentence = serializers.CharField()
    start_offset = serializers.IntegerField(help_text="Character offset of the sentence in the article's text.")
    end_offset = serializers.IntegerField()
    score = serializers.FloatField(help_text="Check-worthiness probability (0-1).")
    priority = serializers.FloatField(
        help_text=(
            "Queue rank: the sum of priority_parts' points, recency (counted back from the newest claim stored) included "
            "(4 decimals; the weights are an admin's)."
        )
    )
    priority_parts = PriorityPartsField()
    claim_type = serializers.ChoiceField(choices=Claim.Type.choices)
    claim_types = serializers.ListField(child=serializers.CharField(), help_text="Every matching type.")
    quantities = QuantitiesField()
    speaker = serializers.CharField()
    speaker_title = serializers.CharField()
    attribution = serializers.CharField(help_text="direct_quote, reported, article, or empty.")
    status = serializers.ChoiceField(choices=Claim.Status.choices)
    dismiss_reason = serializers.CharField()
    tags = serializers.ListField(child=serializers.CharField())
    version = serializers.IntegerField(help_text="Bumped by every reviewer-side change.")
    assignee_id = serializers.IntegerField(allow_null=True)
    assignee = serializers.CharField(source="assignee_username", allow_null=True, help_text="Username of whoever holds it.")
    article = ArticleRefSerializer(source="*")
    cluster_id = serializers.IntegerField(source="cluster_row_id", allow_null=True)
    cluster_key = serializers.CharField(help_text="Its cluster: every claim is in one, its own claim key when no other appearance joined it.")
    cluster_size = serializers.IntegerField(allow_null=True, help_text="Appearances in its cluster: the articles that carry this claim.")
    cluster_outlets = serializers.IntegerField(allow_null=True, help_text="Distinct outlets in its cluster.")
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class EvidenceSerializer(serializers.ModelSerializer):
    added_by = serializers.CharField(source="added_by.username", allow_null=True)

    class Meta:
        model = Evidence
        fields = ["id", "kind", "url", "title", "note", "added_by", "created_at"]
        read_only_fields = fields


class VerdictSerializer(serializers.ModelSerializer):
    claim = serializers.IntegerField(source="claim_id")
    claim_sentence = serializers.CharField()
    author = serializers.CharField(source="author.username", allow_null=True)
    approved_by = serializers.CharField(source="approved_by.username", allow_null=True)
    evidence = EvidenceSerializer(many=True, help_text="The evidence this revision cites.")

    class Meta:
        model = Verdict
        fields = [
            "id", "claim", "claim_sentence", "revision", "rating", "headline", "claim_reviewed", "explanation", "status", "author",
            "approved_by", "approved_at", "review_comment", "evidence", "created_at", "updated_at", "version",
        ]
        read_only_fields = fields


class ClaimDetailSerializer(ClaimSerializer):
    evidence = EvidenceSerializer(many=True, help_text="Evidence reviewers found, oldest first.")
    verdicts = VerdictSerializer(many=True, help_text="Every verdict revision, newest first (drafts and returned ones included).")


class ClusterSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    cluster_key = serializers.CharField(help_text="The smallest claim key in the cluster when it formed.")
    size = serializers.IntegerField(help_text="Its appearances: the claim in that many articles (each an item of /claims/).")
    outlet_count = serializers.IntegerField(help_text="Distinct outlets.")
    first_claim_id = serializers.IntegerField(allow_null=True)
    first_sentence = serializers.CharField(allow_null=True, help_text="The first appearance's sentence.")
    first_seen_at = serializers.DateTimeField(allow_null=True)
    updated_at = serializers.DateTimeField()


class ClusterDetailSerializer(ClusterSerializer):
    appearances = ClaimSerializer(many=True, help_text="Every appearance, first published first.")


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()


FIELD_ERRORS_SCHEMA = {
    "type": "object",
    "description": "Each invalid parameter with its messages.",
    "additionalProperties": {"type": "array", "items": {"type": "string"}},
}
