"""The workshop: what makes and measures the reader's models. Nothing here runs for a user.

- ``synth``: the scene generator (card designs, backgrounds, rendered scenes with labels);
- ``realdata``, ``labels``: the real labelled photos and YOLO-format sets as training data;
- ``train_detector``, ``train_classifier``: the two networks' training (torch, ultralytics);
- ``quantize``: their int8 copies; ``torch_detector``: PyTorch weights as a corner locator;
- ``evaluate``, ``corner_report``: measurements of the whole reader on labelled photos.

The workshop imports the reader (``vision``) to measure it and to cut crops exactly as it
reads them; the reader never imports the workshop (``tests/test_layout.py`` checks it).
"""
