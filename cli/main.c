/* elog-tui command line: parses arguments, runs a subcommand, and is the only
 * place that reports errors to the user and chooses the exit status. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "evlog.h"
#include "show.h"

static const char main_usage[] =
    "usage: elog-tui show FILE        print every event like `ghc-events show`\n"
    "       elog-tui scan FILE        walk every event once and count them (benchmark floor)\n"
    "       elog-tui FILE             (until the viewer lands: same as show)\n"
    "       elog-tui --help\n";

static void
main_report(const char *file, const diag *d, const char *prefix)
{
    char buf[1024];
    diag_format(d, file, buf, sizeof buf);
    fprintf(stderr, "elog-tui: %s%s\n", prefix, buf);
}

/* Open or exit 1 with the one-line error. Caller closes. */
static evlog *
main_open(const char *file)
{
    diag d;
    diag_clear(&d);
    evlog *log = evlog_open(file, &d);
    if (!log) {
        main_report(file, &d, "");
        exit(1);
    }
    return log;
}

/* Report how the data ended; returns the exit status it implies. */
static int
main_ending(const char *file, const diag *ending, size_t n_events)
{
    if (ending->code == DIAG_OK)
        return 0;
    if (ending->code == DIAG_TRUNCATED) {
        char buf[1024];
        diag_format(ending, file, buf, sizeof buf);
        fprintf(stderr, "elog-tui: warning: %s; %zu complete events before it were read\n",
                buf, n_events);
        return 0;
    }
    main_report(file, ending, "");
    return 1;
}

static int
main_show(const char *file)
{
    evlog *log = main_open(file);
    diag ending;
    show_stats st;
    bool ok = show_write(log, stdout, &ending, &st);
    evlog_close(log);
    if (!ok) {
        fprintf(stderr, "elog-tui: error writing output\n");
        return 1;
    }
    return main_ending(file, &ending, st.n_events);
}

static int
main_scan(const char *file)
{
    evlog *log = main_open(file);
    evlog_advise_sequential(log);
    evlog_iter it;
    evlog_iter_init(&it, log);
    evlog_event ev;
    size_t n = 0;
    uint64_t checksum = 0;
    while (evlog_iter_next(&it, &ev)) {
        n++;
        checksum += ev.time_ns ^ ev.type;
    }
    printf("%zu events, %zu bytes, checksum %llu\n", n, evlog_size(log),
           (unsigned long long)checksum);
    diag ending = it.diag;
    if (it.state == EVLOG_ITER_END)
        diag_clear(&ending);
    evlog_close(log);
    return main_ending(file, &ending, n);
}

int
main(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(main_usage, stdout);
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "show") == 0)
        return main_show(argv[2]);
    if (argc == 3 && strcmp(argv[1], "scan") == 0)
        return main_scan(argv[2]);
    if (argc == 2 && argv[1][0] != '-')
        return main_show(argv[1]);
    fputs(main_usage, stderr);
    return 2;
}
