"""Synthetic training scenes for the card-corner detector.

``decks`` fetches and rasterises real card designs from package registries, ``scene`` lays
cards out on a table and renders a photo-like image with YOLO labels, and ``__main__`` is
the command line that writes a whole data set.
"""
