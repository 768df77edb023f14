"""What a run's events and its schema files read of its whole export, kept with the run.

The template kinds and predicate weights (``aesi_lib.events.schema.EventSchema``), the roles
and the template names (``aesi_lib.run.pipeline.run_schema``) are computed once from a run's
export, by its ``events`` step, and kept beside its event rows: the files a person reads
(``schema.md``, ``events.jsonl``) and the events of new documents filled with the run's
schema (``aesi extract``) read them instead of computing them again from the whole export
(about 2 s on MUC-4 with WordNet). Whether a word is a title is not kept: it is WordNet's,
given back by whoever loads the reading.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from aesi_lib.events.kinds import TemplateKind
from aesi_lib.events.schema import EventSchema
from aesi_lib.files import replacing
from aesi_lib.run.roles import Role


@dataclass(frozen=True)
class RunReading:
    """The corpus-level reading of a run's export.

    Attributes
    ----------
    events : EventSchema
        Template kinds, predicate weights and the title test of the events.
    roles : list of Role
        The roles of its templates (``aesi_lib.run.roles.template_roles``).
    names : dict of int to str
        Each template's name (``aesi_lib.run.roles.template_name``).
    """

    events: EventSchema
    roles: list[Role]
    names: dict[int, str]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict, without the title test (:meth:`from_dict` takes it back)."""
        return {"kinds": [k.to_dict() for k in self.events.kinds.values()],
                "weights": dict(self.events.weights),
                "roles": [asdict(r) for r in self.roles],
                "names": {str(t): name for t, name in self.names.items()}}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any],
                  is_title: Callable[[str], bool] | None = None) -> RunReading:
        """The inverse of :meth:`to_dict`, with ``is_title`` as the events' title test
        (``WordNetLexicon.is_person_noun``; None: no title is stripped from a name)."""
        kinds = [TemplateKind.from_dict(k) for k in data["kinds"]]
        events = EventSchema({k.template: k for k in kinds},
                             {str(p): float(w) for p, w in data["weights"].items()}, is_title)
        return cls(events, [Role(**r) for r in data["roles"]],
                   {int(t): str(name) for t, name in data["names"].items()})


def save_reading(reading: RunReading, path: str | Path) -> None:
    """Write ``reading`` as JSON to ``path`` (whole or not at all)."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with replacing(Path(path)) as tmp:
        tmp.write_text(json.dumps(reading.to_dict()))


def load_reading(path: str | Path, is_title: Callable[[str], bool] | None = None
                 ) -> RunReading:
    """The reading :func:`save_reading` wrote, with ``is_title`` as its title test."""
    return RunReading.from_dict(json.loads(Path(path).read_text()), is_title)
