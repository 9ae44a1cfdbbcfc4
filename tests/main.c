/* tests/main: the single Check runner. Every suite runs; the closing line is
 * Check's "100%: Checks: N, Failures: 0, Errors: 0". Select with CK_RUN_SUITE. */
#include <stdlib.h>

#include "tests.h"

int
main(void)
{
    SRunner *sr = srunner_create(test_cursor_suite());
    srunner_add_suite(sr, test_textfmt_suite());
    srunner_add_suite(sr, test_evtype_suite());
    srunner_add_suite(sr, test_decode_suite());
    srunner_add_suite(sr, test_evlog_suite());
    srunner_add_suite(sr, test_merge_suite());
    srunner_add_suite(sr, test_corpus_suite());
    srunner_add_suite(sr, test_fixtures_suite());
    srunner_add_suite(sr, test_badinput_suite());
    srunner_add_suite(sr, test_truncation_suite());
    srunner_add_suite(sr, test_corrupt_suite());
    srunner_add_suite(sr, test_mapfile_suite());
    srunner_add_suite(sr, test_limits_suite());
    srunner_add_suite(sr, test_timefmt_suite());
    srunner_add_suite(sr, test_gcstats_suite());
    srunner_add_suite(sr, test_timeview_suite());
    srunner_add_suite(sr, test_axis_suite());
    srunner_add_suite(sr, test_keymap_suite());
    srunner_add_suite(sr, test_runlane_suite());
    srunner_add_suite(sr, test_busybins_suite());
    srunner_add_suite(sr, test_msgtab_suite());
    srunner_add_suite(sr, test_ivtrack_suite());
    srunner_add_suite(sr, test_gcpack_suite());
    srunner_add_suite(sr, test_series_suite());
    srunner_add_suite(sr, test_xalloc_suite());
    srunner_add_suite(sr, test_threadtab_suite());
    srunner_add_suite(sr, test_heapprof_suite());
    srunner_add_suite(sr, test_evseek_suite());
    srunner_add_suite(sr, test_evindex_suite());
    srunner_add_suite(sr, test_surface_suite());
    srunner_add_suite(sr, test_termio_suite());
    srunner_add_suite(sr, test_lanes_suite());
    srunner_add_suite(sr, test_detail_suite());
    srunner_add_suite(sr, test_uilist_suite());
    srunner_add_suite(sr, test_eventpane_suite());
    srunner_add_suite(sr, test_helpview_suite());
    srunner_add_suite(sr, test_timelist_suite());
    srunner_add_suite(sr, test_evindex_par_suite());
    srunner_add_suite(sr, test_evindex_split_suite());
    srunner_add_suite(sr, test_app_suite());
    srunner_add_suite(sr, test_xcheck_suite());
    srunner_add_suite(sr, test_e2e_suite());
    srunner_add_suite(sr, test_clock_suite());
    srunner_add_suite(sr, test_mmu_suite());
    srunner_add_suite(sr, test_gcanalysis_suite());
    srunner_add_suite(sr, test_threadlife_suite());
    srunner_add_suite(sr, test_threadlife_grow_suite());
    srunner_add_suite(sr, test_focus_live_suite());
    srunner_add_suite(sr, test_view11_suite());
    srunner_add_suite(sr, test_newer_suite());
    srunner_add_suite(sr, test_export_suite());
    srunner_add_suite(sr, test_install_suite());
    srunner_add_suite(sr, test_settings_suite());
    srunner_add_suite(sr, test_radixsort_suite());
    srunner_add_suite(sr, test_samplebuf_suite());
    srunner_add_suite(sr, test_live_suite());
    srunner_add_suite(sr, test_evindex_grow_suite());
    srunner_add_suite(sr, test_timeprof_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
