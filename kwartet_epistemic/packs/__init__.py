"""The themed packs bundled with the library, as TOML files: ``kw.bundled_packs()`` lists
them, and ``kw.Deck.themed("animals")`` (or ``kwartet play --deck animals``) deals with
one."""

__all__: list[str] = []
