"""A prompt that names nothing a past session could be about: the recall hooks' everyday request."""

import pytest

from backscroll.retrieval.policy.everyday_request import is_everyday


@pytest.mark.parametrize("prompt", [
    "yes", "k", "thanks!", "perfect", "continue", "go ahead", "try again", "fix it", "deploy",
    "run the tests", "commit it", "fix the lint errors", "update the README with installation instructions",
    "remove the commented-out code", "  ", "what did we decide?",
    "EADDRINUSE",  # one word alone: a history holds it somewhere
])
def test_everyday_requests(prompt):
    assert is_everyday(prompt)


@pytest.mark.parametrize("prompt", [
    "fix KeyError in parse_args",  # an identifier
    "why does the build fail on arm64?",  # a number
    "edit src/cache.py",  # a path
    "the /orders endpoint returns 500",
    "rename getUserName",  # camelCase
    "OOMKilled again",
    "pytest --lf",  # a flag
    "npm install",  # a word neither everyday in coding work nor plain English
    "the tokenizer drops emoji",
    "修复这个错误",  # a script the word lists do not know
])
def test_prompts_that_name_something(prompt):
    assert not is_everyday(prompt)
