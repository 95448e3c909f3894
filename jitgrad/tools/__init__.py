"""Developer tools (code generation); not imported by ``jitgrad`` itself."""
