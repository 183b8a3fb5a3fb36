"""Chinese Poker rules engine: cards, hand strength, settings, naturals and scoring.

Knows nothing of images.
"""
