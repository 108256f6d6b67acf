"""Shared fixtures. The backscroll pytest plugin (backscroll.testing) provides the session builders."""
