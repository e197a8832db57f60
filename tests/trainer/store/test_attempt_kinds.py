"""An attempt's kind (write, debug, followup), its planted trap and its variant through
`drill export` / `drill import`; a follow-up is no solving time; the store refuses an unknown kind."""
from __future__ import annotations

from datetime import timedelta

import pytest

from tests.trainer.store.test_store import T0, Clock, home  # noqa: F401 - `home` is a fixture
from trainer.store import ImportRefusedError, NewAttempt, open_store, validate_export


def _fill(store):
    sitting = store.open_sitting("mha-padding", "mock", target_seconds=420, opened_at=T0)
    store.record_attempt(NewAttempt("mha-padding", "mock", T0, 200, "pass", target_seconds=420, sitting_id=sitting))
    store.record_attempt(NewAttempt("mha-padding", "mock", T0 + timedelta(seconds=210), 30, "pass",
                                    target_seconds=420, sitting_id=sitting, kind="followup",
                                    variant={"mask": "pad"}))
    store.close_sitting(sitting, "passed")
    store.record_attempt(NewAttempt("gqa", "debug", T0 + timedelta(hours=1), 90, "pass", target_seconds=300,
                                    kind="debug", debug_trap="scale-by-d"))


def test_kind_debug_trap_and_variant_survive_export_and_import(home, tmp_path):  # noqa: F811
    with open_store(clock=Clock()) as store:
        _fill(store)
        data = store.export()
    got = [(a["kind"], a["debug_trap"], a["variant"]) for a in data["attempts"]]
    assert got == [("write", None, {}), ("followup", None, {"mask": "pad"}), ("debug", "scale-by-d", {})]
    assert validate_export(data) == []
    with open_store(tmp_path / "other", clock=Clock()) as other:
        other.import_(data)
        assert [(a.kind, a.debug_trap, dict(a.variant)) for a in other.attempts()] == got
        assert other.counts()["review_logs"] == 2  # the follow-up shares its drill's one review


def test_an_old_export_without_the_fields_imports_them_as_the_defaults(home, tmp_path):  # noqa: F811
    with open_store(clock=Clock()) as store:
        _fill(store)
        data = store.export()
    for a in data["attempts"]:
        for key in ("kind", "debug_trap", "variant"):
            del a[key]
    assert validate_export(data) == []
    with open_store(tmp_path / "other", clock=Clock()) as other:
        other.import_(data)
        assert [(a.kind, a.debug_trap, dict(a.variant)) for a in other.attempts()] == [("write", None, {})] * 3


@pytest.mark.parametrize("field, value, reason", [
    ("kind", "rewrite", "kind must be one of write, debug, followup"),
    ("kind", ["debug"], "kind must be one of"),
    ("kind", None, "kind must be one of"),
    ("debug_trap", "../../etc/passwd", "debug_trap must be a trap id"),
    ("debug_trap", "x" * 500, "debug_trap must be a trap id"),
    ("debug_trap", 7, "debug_trap must be a trap id"),
])
def test_hostile_kinds_and_traps_are_refused_with_a_reason(home, tmp_path, field, value, reason):  # noqa: F811
    with open_store(clock=Clock()) as store:
        _fill(store)
        data = store.export()
    data["attempts"][2][field] = value
    assert any(reason in p for p in validate_export(data)), validate_export(data)
    with open_store(tmp_path / "other", clock=Clock()) as other:
        with pytest.raises(ImportRefusedError):
            other.import_(data)
        assert other.counts()["attempts"] == 0


def test_a_planted_trap_on_an_attempt_that_is_no_debug_round_is_refused(home):  # noqa: F811
    with open_store(clock=Clock()) as store:
        _fill(store)
        data = store.export()
    data["attempts"][0]["debug_trap"] = "scale-by-d"
    assert any("attempts[0].debug_trap names a planted trap, so kind must be debug" in p
               for p in validate_export(data))


def test_the_store_refuses_an_unknown_kind_and_a_followup_is_no_best_time(home):  # noqa: F811
    with open_store(clock=Clock()) as store:
        with pytest.raises(ValueError, match="unknown attempt kind"):
            store.record_attempt(NewAttempt("gqa", "mock", T0, 10, "pass", kind="bonus"))
        _fill(store)
        assert store.drill_summaries()["mha-padding"].best_seconds == 200  # not the follow-up's 30
