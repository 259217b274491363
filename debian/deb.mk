# SPDX-License-Identifier: GPL-2.0-or-later
#
# The Debian packages (debian/; README "Installing on a server"); included
# by the top-level Makefile.
#
#   make deb           pcierr-dkms, pcierrd, libpcierr2, libpcierr-dev (and
#                      their -dbgsym) in $(DEB_DIR), built by
#                      dpkg-buildpackage from a copy of the tree, lintian
#                      clean (scripts/build-deb)
#   make alerts-check  promtool check rules and test rules on the example
#                      alert rules pcierrd ships (docs/pcierr-alerts.yml)
#   make deb-check     the packages installed, upgraded, removed and purged
#                      by apt in the systemd test VM (tests/vm/README.md);
#                      part of make check, after deb, whose packages it
#                      installs

DEB_DIR    := $(BUILD)/deb
DEB_UP_DIR := $(BUILD)/deb-upgrade
# what scripts/build-deb copies (the tree's files as git knows them): the
# packages are rebuilt when one of them changes, not by every make deb,
# so that make check's deb-check installs the packages its deb built
DEB_SRCS   := $(wildcard $(shell git ls-files -c -o --exclude-standard 2>/dev/null))
DEB_STAMP  := $(DEB_DIR)/.built
DEB_UP_STAMP := $(DEB_UP_DIR)/.built
# the upgrade deb-check installs over the first: a binary-only rebuild of
# the same sources one version higher (a binNMU, as Debian's buildds make
# them): pcierrd, libpcierr2 and libpcierr-dev; pcierr-dkms (Architecture:
# all) keeps its version, its module stays (tests/vm/README.md says why)
DEB_UP_VERSION = $(shell dpkg-parsechangelog -l debian/changelog -S Version 2>/dev/null)+b1

.PHONY: deb alerts-check deb-check
deb: $(DEB_STAMP)

# (build-deb empties its OUTDIR first: no stamp is left by a failed build)
$(DEB_STAMP): $(DEB_SRCS)
	scripts/build-deb $(DEB_DIR)
	touch $@

$(DEB_UP_STAMP): $(DEB_SRCS)
	scripts/build-deb --no-lintian --binnmu $(DEB_UP_DIR) $(DEB_UP_VERSION)
	touch $@

alerts-check:
	promtool check rules docs/pcierr-alerts.yml
	cd docs && promtool test rules pcierr-alerts.test.yml

# The packages in the systemd test VM (tests/vm/run --systemd --deb): the
# scenarios of tests/vm/deb-scenarios install, upgrade, remove and purge
# them with apt in the guest, whose root is the host's under a tmpfs
# overlay. The host itself never gets them: checked before and after.
DEB_CHECK_TIMEOUT ?= 3600
DEB_PKGS := pcierr-dkms pcierrd libpcierr2 libpcierr-dev pcierrd-dbgsym libpcierr2-dbgsym

# (any trace in dpkg's database counts: "rc", a package removed but not
# purged, too)
define deb_host_clean
	@for p in $(DEB_PKGS); do \
		s=$$(dpkg-query -W -f='$${db:Status-Abbrev}' $$p 2>/dev/null | cut -c1-2); \
		case "$$s" in ""|un) ;; *) \
			echo "deb-check: $$p is known to the host's dpkg ($$s) $(1): deb-check must not install it there" >&2; \
			exit 1 ;; esac; done
endef

deb-check: $(VM_DEPS) $(JSON_CHECK) $(DEB_STAMP) $(DEB_UP_STAMP)
	$(call deb_host_clean,before the test)
	$(VM_DIR)/run --systemd --deb $(DEB_DIR) --deb-upgrade $(DEB_UP_DIR) --build $(BUILD) \
		--kver $(KVER) --timeout $(DEB_CHECK_TIMEOUT) $(S)
	$(call deb_host_clean,after the test)
