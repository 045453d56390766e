"""Tools around the generator: the engine protocol and session, verify, bench, suites, timing."""
