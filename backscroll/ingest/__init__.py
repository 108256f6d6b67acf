"""Stage 1: reading agents' session files into records (sources, checkpointed reading, echo tagging, redaction)."""
