# no-la.mk — kc installs no libtool archives (.la files); doc/building.md
# says why.  Every Makefile.am that installs libtool libraries
# (lib_LTLIBRARIES into $(libdir), pkglib_LTLIBRARIES into $(pkglibdir))
# includes this file:
#  - make install removes the .la files libtool installed beside them;
#  - make uninstall removes the library files, which libtool finds only
#    through the installed .la: their names are those the build tree's
#    .la gives (library_names, old_library);
#  - make installcheck fails on an installed .la, or a missing library file.

install-exec-hook: kc-remove-la
kc-remove-la:
	@for la in $(lib_LTLIBRARIES); do \
	  f="$(DESTDIR)$(libdir)/$${la##*/}"; echo " rm -f $$f"; rm -f "$$f"; \
	done; \
	for la in $(pkglib_LTLIBRARIES); do \
	  f="$(DESTDIR)$(pkglibdir)/$${la##*/}"; echo " rm -f $$f"; rm -f "$$f"; \
	done

# KC_LA_FILES DIR: for each .la of the build tree installed into DIR (the
# directory, then the .la files, on the shell's standard input), prints
# "DIR/LA-NAME" and then "DIR/FILE" for each library file libtool
# installed from it.
KC_LA_FILES = while read -r d las; do \
	  for la in $$las; do \
	    echo "la $$d/$${la\#\#*/}"; \
	    for f in `sed -n "s/^library_names='\(.*\)'$$/\1/p; s/^old_library='\(..*\)'$$/\1/p" "$$la"`; do \
	      echo "lib $$d/$$f"; \
	    done; \
	  done; \
	done
KC_LA_DIRS = printf '%s %s\n%s %s\n' '$(DESTDIR)$(libdir)' '$(lib_LTLIBRARIES)' \
	'$(DESTDIR)$(pkglibdir)' '$(pkglib_LTLIBRARIES)'

uninstall-local: kc-uninstall-la-libs
kc-uninstall-la-libs:
	@$(KC_LA_DIRS) | $(KC_LA_FILES) | sort -u | while read -r kind f; do \
	  test $$kind = lib || continue; echo " rm -f $$f"; rm -f "$$f"; \
	done

installcheck-local: kc-installcheck-la
kc-installcheck-la:
	@$(KC_LA_DIRS) | $(KC_LA_FILES) | sort -u | { bad=0; while read -r kind f; do \
	  if test $$kind = la && test -e "$$f"; then \
	    echo "installcheck: $$f is installed: kc installs no .la file"; bad=1; \
	  elif test $$kind = lib && test ! -e "$$f" && test ! -h "$$f"; then \
	    echo "installcheck: $$f is missing"; bad=1; \
	  fi; \
	done; exit $$bad; }
.PHONY: kc-remove-la kc-uninstall-la-libs kc-installcheck-la
