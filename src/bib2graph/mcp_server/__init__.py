"""`b2g mcp`: the verbs as Model Context Protocol tools (an adapter over the service layer, like the CLI)."""
