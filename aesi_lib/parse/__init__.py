"""Parser backends (spaCy default, Stanza), casing strategies and the neutral parse format."""
