# tools/kcc.mk — automake rules that build .kc.c files with the in-tree kcc.
#
# Use in any Makefile.am of the kc tree:
#
#   include $(top_srcdir)/tools/kcc.mk
#   noinst_PROGRAMS = saxpy-kc
#   saxpy_kc_SOURCES = saxpy-kc.c saxpy.kc.c
#   saxpy_kc_LDADD = $(top_builddir)/libkc/libkc.la
#
# A .kc.c file listed in a _SOURCES variable becomes foo.kc.$(OBJEXT) (or
# foo.kc.lo in a libtool library) as usual; automake writes that object's
# rule without a recipe, and GNU make takes the recipe from the pattern
# rules below rather than from automake's .c.o rule because their stem is
# shorter ("foo" against "foo.kc").  So the object is built by kcc, with the
# same flags automake would pass to CC, automake's dependency file
# ($(DEPDIR)/foo.kc.Po) and its clean and dist rules.  Two limits:
#  - no per-target CFLAGS/CPPFLAGS for a program holding .kc.c sources:
#    automake then renames the object (prog-foo.kc.o) and writes a recipe
#    with plain CC;
#  - GNU make (>= 3.82), which kc's build needs anyway.
#
# Objects keep their PTX beside them (foo.kc.ptx; KCC_SAVE_PTX= turns that
# off); `make foo.kc.ptx` writes the PTX alone (kcc --ptx).
# Variables: KCC (the kcc to run), KCCFLAGS (extra flags for it only),
# KC_NVCC and CC (passed on to kcc: `make KC_NVCC=/nonexistent` builds
# host-only objects).

KCC = $(top_builddir)/tools/kcc
KCCFLAGS =
# Every object's PTX is also kept beside it (foo.kc.ptx), for the tests
# that assemble all of them with ptxas (tests/t-kcc-ptx.sh).
KCC_SAVE_PTX = --save-ptx
# The in-tree headers, never the installed ones.  The PTX architecture is
# kcc's configured default (KCCFLAGS=--ptx-arch=compute_XX overrides it).
KCC_ENV = CC='$(CC)' KC_NVCC='$(KC_NVCC)' KCC_INCLUDEDIR=
KCC_CPPFLAGS = -I$(top_srcdir)/include -I$(top_builddir)/include
KCC_COMPILE = $(KCC_ENV) $(KCC) $(DEFS) $(DEFAULT_INCLUDES) $(INCLUDES) \
	$(KCC_CPPFLAGS) $(AM_CPPFLAGS) $(CPPFLAGS) $(AM_CFLAGS) $(CFLAGS) \
	$(KCCFLAGS)

AM_V_KCC = $(am__v_KCC_@AM_V@)
am__v_KCC_ = $(am__v_KCC_@AM_DEFAULT_V@)
am__v_KCC_0 = @echo "  KCC     " $@;
am__v_KCC_1 =

%.kc.$(OBJEXT): %.kc.c $(KCC)
	$(AM_V_KCC)$(MKDIR_P) $(@D)/$(DEPDIR) && \
	$(KCC_COMPILE) $(KCC_SAVE_PTX) -MT $@ -MD -MP \
	  -MF $(@D)/$(DEPDIR)/$(*F).kc.Tpo -c -o $@ $< && \
	$(am__mv) $(@D)/$(DEPDIR)/$(*F).kc.Tpo $(@D)/$(DEPDIR)/$(*F).kc.Po

%.kc.lo: %.kc.c $(KCC)
	$(AM_V_KCC)$(MKDIR_P) $(@D)/$(DEPDIR) && \
	$(KCC_ENV) $(LIBTOOL) $(AM_V_lt) --tag=CC $(AM_LIBTOOLFLAGS) \
	  $(LIBTOOLFLAGS) --mode=compile $(KCC) $(DEFS) $(DEFAULT_INCLUDES) \
	  $(INCLUDES) $(KCC_CPPFLAGS) $(AM_CPPFLAGS) $(CPPFLAGS) $(AM_CFLAGS) \
	  $(CFLAGS) $(KCCFLAGS) -MT $@ -MD -MP \
	  -MF $(@D)/$(DEPDIR)/$(*F).kc.Tpo -c -o $@ $< && \
	$(am__mv) $(@D)/$(DEPDIR)/$(*F).kc.Tpo $(@D)/$(DEPDIR)/$(*F).kc.Plo

%.kc.ptx: %.kc.c $(KCC)
	$(AM_V_KCC)$(MKDIR_P) $(@D) && \
	$(KCC_ENV) $(KCC) --ptx $(DEFS) $(DEFAULT_INCLUDES) $(INCLUDES) \
	  $(KCC_CPPFLAGS) $(AM_CPPFLAGS) $(CPPFLAGS) $(KCCFLAGS) -o $@ $<

# kcc is generated in tools/; build it there when another directory is made
# on its own.
$(top_builddir)/tools/kcc: $(top_srcdir)/tools/kcc.in
	cd $(top_builddir)/tools && $(MAKE) $(AM_MAKEFLAGS) kcc

clean-local: clean-kcc-ptx
clean-kcc-ptx:
	-rm -f *.kc.ptx */*.kc.ptx */.libs/*.kc.ptx
.PHONY: clean-kcc-ptx
