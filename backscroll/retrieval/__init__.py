"""Stage 4: turning a query into ranked hits: query planning, fusion, ranking, snippets."""
