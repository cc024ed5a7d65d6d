"""How `make test` runs: it spreads the tests over its workers (``--dist loadgroup``,
tests.conftest), each xdist group whole to one worker. pytest-xdist names the group in the
node id the scheduler reads; pytest 9.2 ignores that name, and the groups were silently
split (pytest-xdist #1386, hence pytest < 9.2 in pyproject.toml). And it loads the pytest
plugins it names (pyproject.toml), none found by entry point, whose packages pytest would
otherwise rewrite and compile again in each worker of a fresh clone."""

from __future__ import annotations

import sys

import pytest


def test_every_group_reaches_the_scheduler(request: pytest.FixtureRequest) -> None:
    if not getattr(request.config.option, "loadgroup", False):
        pytest.skip("not run by an xdist worker with --dist loadgroup")
    groups = {
        item.nodeid: mark.args[0] if mark.args else mark.kwargs.get("name", "default")
        for item in request.session.items
        if (mark := item.get_closest_marker("xdist_group"))
    }
    if not groups:
        pytest.skip("no test of a group selected")
    assert {n for n, group in groups.items() if not n.endswith(f"@{group}")} == set()


def test_plugins_are_named_and_their_packages_not_rewritten(
    request: pytest.FixtureRequest,
) -> None:
    import hypothesis.core
    from _pytest.assertion.rewrite import AssertionRewritingHook

    assert isinstance(
        sys.modules[__name__].__loader__, AssertionRewritingHook
    )  # a test module is rewritten
    assert not isinstance(hypothesis.core.__loader__, AssertionRewritingHook)
    manager = request.config.pluginmanager
    assert manager.has_plugin("xdist.plugin") and manager.has_plugin("_hypothesis_pytestplugin")
