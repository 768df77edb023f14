"""The executor of ``aesi_lib.steps.executor``: a step's cache, retries and log name, the same
whoever runs it, and steps run in threads beside the caller."""

from __future__ import annotations

import logging
from types import SimpleNamespace

import pytest

from aesi_flows.in_process import in_flow_run
from aesi_lib.steps.declaration import Retry, step
from aesi_lib.steps.executor import (
    CACHED,
    COMPLETED,
    Executor,
    ResultStore,
    run_step,
    step_threads,
)
from aesi_lib.steps.logs import step_logger

CALLS: list[str] = []


@step("double", key=lambda p: f"double-{p['x']}")
def double(x: int) -> int:
    CALLS.append(f"double {x}")
    step_logger().info("doubling %d", x)
    return 2 * x


def _fails_then_works(failures: int, error: type[Exception]) -> object:
    attempts: list[int] = []

    @step("flaky", retry=Retry(retries=2, condition=lambda e: not isinstance(e, KeyError)))
    def flaky() -> int:
        attempts.append(1)
        if len(attempts) <= failures:
            raise error("not yet")
        return len(attempts)

    return flaky


def test_a_cached_step_runs_once_and_is_answered_from_its_store(tmp_path, caplog):
    CALLS.clear()
    store = ResultStore(tmp_path)
    with caplog.at_level(logging.INFO, logger="aesi"):
        assert run_step(double, (3,), {}, store) == (6, COMPLETED)
    assert run_step(double, (), {"x": 3}, store) == (6, CACHED)
    assert run_step(double, (4,), {}, store) == (8, COMPLETED)
    assert run_step(double, (4,), {}) == (8, COMPLETED)     # no store: nothing kept or read
    assert CALLS == ["double 3", "double 4", "double 4"]
    assert (tmp_path / "double-3.pickle").is_file()    # the store's record of the key
    assert [r.task_run_name for r in caplog.records if r.getMessage() == "doubling 3"] \
        == ["double"]
    assert not in_flow_run()


def test_retries_follow_the_steps_count_and_condition():
    assert run_step(_fails_then_works(2, ValueError), (), {})[0] == 3
    with pytest.raises(ValueError):
        run_step(_fails_then_works(3, ValueError), (), {})
    with pytest.raises(KeyError):                   # the condition refuses a retry
        run_step(_fails_then_works(1, KeyError), (), {})
    with pytest.raises(ValueError):                 # whoever calls retries (Prefect)
        run_step(_fails_then_works(1, ValueError), (), {}, retries=False)


def test_step_threads_run_steps_beside_the_caller_and_drop_the_rest_on_an_error(tmp_path):
    CALLS.clear()
    with step_threads(2, ResultStore(tmp_path)) as submit:
        futures = [submit(double, x) for x in range(5)]
    assert [f.result() for f in futures] == [0, 2, 4, 6, 8]
    with pytest.raises(RuntimeError), step_threads(1, ResultStore(tmp_path)) as submit:
        futures = [submit(double, x) for x in range(100, 150)]
        raise RuntimeError("stop")
    assert any(f.cancelled() for f in futures)


class _Cluster:
    """A Dask client's ``submit`` that runs the function here and names the steps it got."""

    def __init__(self) -> None:
        self.ran: list[str] = []

    def submit(self, fn, *args, pure=True):
        self.ran.append(args[0].name)
        value = fn(*args)
        return SimpleNamespace(result=lambda: value)


def test_a_step_declared_spread_runs_on_the_cluster_and_the_others_here():
    spread = step("spread", spread=True)(lambda x: {"worker": "w1", "x": x})
    here = step("here")(lambda x: x)
    cluster = _Cluster()
    steps = Executor(cluster=cluster)
    assert steps.run("s", spread, 1) == {"worker": "w1", "x": 1}
    assert steps.run("h", here, 2) == 2
    assert steps.run_here("s2", spread, 3)["x"] == 3
    assert cluster.ran == ["spread"]
    assert steps.records["s"]["worker"] == "w1" and "worker" not in steps.records["h"]
    with steps.threads(2) as submit:
        futures = [submit(spread, 4), submit(here, 5)]
    assert [f.result() for f in futures] == [{"worker": "w1", "x": 4}, 5]
    assert cluster.ran == ["spread", "spread"]
    # Without a cluster every step runs here.
    assert Executor().run("s", spread, 6)["x"] == 6 and cluster.ran == ["spread", "spread"]
