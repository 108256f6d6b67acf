"""Stage 3: indexes derived from the store: Tantivy lexical index, embeddings and vectors."""
