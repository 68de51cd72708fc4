/* A library with no kokkosp_* callback: KC_TOOLS_LIBS naming it is
 * reported and ignored (tests/tools-load.c). */
__attribute__((visibility("default"))) int kc_test_not_a_tool(void);
int kc_test_not_a_tool(void) { return 42; }
