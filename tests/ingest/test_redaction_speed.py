"""The redactor's shortcuts (every marker found in one Aho-Corasick pass, the generic rule tried only at
its keywords) decide the same as the plain scans they replace."""

from __future__ import annotations

import re

from backscroll.ingest import redact as R

TEXTS = [
    "password=Zq8sW2xPl9 and token: abcdefgh12345678 then key=xyz",
    "passpasspass=== pwd:pwd:'Kx9/Qw3z' secret_token=ghp_R8kM2vXq9LtY4wZp7NcB3hJd6FsA1uGe5TnQ",
    "CREDENTIALS = \"S3cr3t-P4ss\"; api_key => 'Ab12Cd34Ef56Gh78'",
    "nothing to see here", "",
]


def test_generic_rule_tried_at_markers_matches_finditer():
    rule = next(r for r in R.RULES if r.group == "v")
    pattern = R._LOWER_PATTERNS[rule.kind]
    for text in TEXTS:
        low = text.lower()
        assert [m.span() for m in R._matches_at_markers(pattern, low, rule.markers)] == \
            [m.span() for m in pattern.finditer(low)]


def test_the_one_pass_marker_search_selects_the_rules_a_substring_test_per_marker_would():
    from redaction_forms import FORMS

    for text in [*TEXTS, *(t for _n, t, _f in FORMS), "sk-sk- SKsk AKIAasia xoxb-x curl -u a:b https://u:p@h"]:
        low = text.lower()
        found: set[int] = set()
        R._CASED_AUTOMATON.found(text, found)
        R._LOWER_AUTOMATON.found(low, found)
        plain = {i for i, r in enumerate(R.RULES) if any(m in (low if r.lower else text) for m in r.markers)}
        assert found == plain, text


def test_markers_are_necessary_substrings():
    """Every secret form's match holds one of its rule's markers (tightened markers lose nothing).
    (Our rules: gitleaks' keywords are its prefilter, as gitleaks itself uses them.)"""
    from redaction_forms import FORMS

    for _name, text, _frags in FORMS:
        for rule in R.OWN_RULES:
            hay = text.lower() if rule.lower else text
            if rule.pattern.search(text) and not re.search(r"\\u00", text):
                assert any(m in hay for m in rule.markers), (rule.kind, text)
