# Two commands do all the set-up on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
TRAIN_STAMP := $(VENV)/.installed-train
CHROMIUM := /usr/bin/chromium
# A font with Chinese glyphs for the row names drawn on the photo (the app falls back to
# boxes and a legend without it) and for the browser tests' screenshots.
CJK_FONT := /usr/share/fonts/truetype/wqy/wqy-microhei.ttc
PORT ?= 8501
export YOLO_OFFLINE := 1
export YOLO_AUTOINSTALL := false
export YOLO_CONFIG_DIR := $(CURDIR)/.yolo
export STREAMLIT_BROWSER_GATHER_USAGE_STATS := false

.PHONY: run run-https test lint install install-train catalogs fonts clean

# The app and the command line need only the reader's packages; the workshop (torch,
# ultralytics) is the `train` extra, which the tests need as well (they train tiny models).
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e .
	touch $(STAMP)

$(TRAIN_STAMP): $(STAMP)
	$(PY) -m pip install --quiet -e '.[train,test]'
	$(PY) -m vision.training.offline
	touch $(TRAIN_STAMP)

install: $(STAMP)
install-train: $(TRAIN_STAMP)

# The browser tests drive Debian's Chromium (Playwright's own browser download would need
# a network we do not have).
$(CHROMIUM):
	@if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium >/dev/null

# Debian's font package; skipped quietly where apt is not ours to use.
$(CJK_FONT):
	@if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO="sudo -n"; fi; \
	( $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq \
	  fonts-wqy-microhei >/dev/null ) || echo "fonts-wqy-microhei not installed: Chinese row names on the photo fall back to colours"

fonts:
	@$(MAKE) --no-print-directory $(CJK_FONT) || true

# Translations: extract the strings marked in app.py and ui/, update every catalog in
# ui/locale/, compile the .mo files (committed: the app needs no Babel to run).
catalogs: $(TRAIN_STAMP)
	$(PY) tools/catalogs.py

run: $(STAMP) fonts
	$(VENV)/bin/streamlit run app.py --server.headless true --server.port $(PORT)

# HTTPS for phones on the table's network (a camera needs a secure origin): a self-signed
# certificate made once in .certs/.
run-https: $(STAMP) fonts
	@mkdir -p .certs
	@[ -f .certs/cert.pem ] || openssl req -x509 -newkey rsa:2048 -nodes -days 365 \
		-keyout .certs/key.pem -out .certs/cert.pem -subj "/CN=cpoker.local" 2>/dev/null
	$(VENV)/bin/streamlit run app.py --server.headless true --server.port $(PORT) \
		--server.address 0.0.0.0 --server.sslCertFile .certs/cert.pem --server.sslKeyFile .certs/key.pem

lint: $(TRAIN_STAMP)
	$(PY) -m ruff check .

test: $(TRAIN_STAMP) $(CHROMIUM) fonts
	$(PY) -m ruff check .
	$(PY) -m pytest -q

clean:
	rm -rf $(VENV) .yolo .pytest_cache
