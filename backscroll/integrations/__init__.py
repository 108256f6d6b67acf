"""Wiring backscroll into coding agents: skills, instruction blocks, recall hooks, an MCP server.

``install`` writes (and removes) the agents' configuration; ``hooks`` answers their hook calls;
``mcp_server`` serves the MCP tools. Nothing here is imported by plain searches.
"""
