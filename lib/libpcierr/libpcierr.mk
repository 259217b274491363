# SPDX-License-Identifier: LGPL-2.1-or-later
#
# libpcierr and the test CLI pcierr-nl; included by the top-level Makefile
# (which provides CFLAGS, NL_CFLAGS/NL_LIBS, BUILD, PREFIX, DESTDIR).
#
#   build/lib/libpcierr.so.2 (+ libpcierr.so), build/lib/libpcierr.a
#   build/lib/libpcierr.pc
#   build/pcierr-nl
#   make install-libpcierr   (hooked to make install)

LIBPCIERR_VERSION := 0.2.0
LIBPCIERR_DIR     := lib/libpcierr
LIBPCIERR_SRCS    := $(addprefix $(LIBPCIERR_DIR)/,ctx.c parse.c names.c)
LIBPCIERR_OBJS    := $(patsubst %.c,$(BUILD)/%.o,$(LIBPCIERR_SRCS))
LIBPCIERR_SONAME  := libpcierr.so.2
LIBPCIERR_SO      := $(BUILD)/lib/$(LIBPCIERR_SONAME)
LIBPCIERR_A       := $(BUILD)/lib/libpcierr.a
LIBPCIERR_PC      := $(BUILD)/lib/libpcierr.pc
LIBPCIERR_CFLAGS  := $(CFLAGS) $(NL_CFLAGS) -fvisibility=hidden -MMD -MP
MULTIARCH ?= $(or $(DEB_HOST_MULTIARCH),$(shell $(CC) -print-multiarch 2>/dev/null),x86_64-linux-gnu)

PCIERR_NL     := $(BUILD)/pcierr-nl
PCIERR_NL_OBJ := $(BUILD)/tests/tools/pcierr-nl.o

.PHONY: libpcierr install-libpcierr
all: libpcierr
install: install-libpcierr

libpcierr: $(LIBPCIERR_SO) $(BUILD)/lib/libpcierr.so $(LIBPCIERR_A) $(LIBPCIERR_PC) $(PCIERR_NL)

$(BUILD)/$(LIBPCIERR_DIR)/%.o: $(LIBPCIERR_DIR)/%.c
	@mkdir -p $(@D)
	$(CC) $(LIBPCIERR_CFLAGS) -c -o $@ $<

$(LIBPCIERR_SO): $(LIBPCIERR_OBJS) $(LIBPCIERR_DIR)/libpcierr.sym
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -shared -Wl,-soname,$(LIBPCIERR_SONAME) \
		-Wl,--version-script=$(LIBPCIERR_DIR)/libpcierr.sym -Wl,--no-undefined \
		-Wl,-z,defs -Wl,-z,relro -Wl,-z,now \
		-o $@ $(LIBPCIERR_OBJS) $(NL_LIBS)

$(BUILD)/lib/libpcierr.so: $(LIBPCIERR_SO)
	ln -sf $(LIBPCIERR_SONAME) $@

# for the unit tests, which call the internal parsers
$(LIBPCIERR_A): $(LIBPCIERR_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

$(LIBPCIERR_PC): $(LIBPCIERR_DIR)/libpcierr.pc.in
	@mkdir -p $(@D)
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@MULTIARCH@|$(MULTIARCH)|g' \
		-e 's|@VERSION@|$(LIBPCIERR_VERSION)|g' $< > $@

$(PCIERR_NL_OBJ): tests/tools/pcierr-nl.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(NL_CFLAGS) -MMD -MP -c -o $@ $<

# linked to the shared library, found next to it when run from the tree
$(PCIERR_NL): $(PCIERR_NL_OBJ) $(LIBPCIERR_SO) $(BUILD)/lib/libpcierr.so
	$(CC) $(CFLAGS) -o $@ $(PCIERR_NL_OBJ) -L$(BUILD)/lib -lpcierr \
		-Wl,-rpath,'$$ORIGIN/lib' $(NL_LIBS)

install-libpcierr: $(LIBPCIERR_SO) $(LIBPCIERR_PC)
	install -d $(DESTDIR)$(PREFIX)/include/pcierr/linux \
		$(DESTDIR)$(PREFIX)/lib/$(MULTIARCH)/pkgconfig
	install -m 0644 $(LIBPCIERR_DIR)/include/pcierr/pcierr.h \
		$(DESTDIR)$(PREFIX)/include/pcierr/pcierr.h
	install -m 0644 kernel/pcierr_shim/uapi/linux/pcierr.h \
		$(DESTDIR)$(PREFIX)/include/pcierr/linux/pcierr.h
	install -m 0755 $(LIBPCIERR_SO) $(DESTDIR)$(PREFIX)/lib/$(MULTIARCH)/$(LIBPCIERR_SONAME)
	ln -sf $(LIBPCIERR_SONAME) $(DESTDIR)$(PREFIX)/lib/$(MULTIARCH)/libpcierr.so
	install -m 0644 $(LIBPCIERR_PC) $(DESTDIR)$(PREFIX)/lib/$(MULTIARCH)/pkgconfig/libpcierr.pc

-include $(LIBPCIERR_OBJS:.o=.d) $(PCIERR_NL_OBJ:.o=.d)
