"""The app's presentation layer: translations, engine terms in the players' languages,
card faces and the phone-first page style. Imports the engine and the reader, never the
reverse; the engine and the command line stay English."""
