"""Filled events: the incidents a run's documents report, typed, with entities in their
roles (:mod:`aesi_lib.events.incidents` holds the rule), and which templates are events
(:mod:`aesi_lib.events.kinds`)."""
