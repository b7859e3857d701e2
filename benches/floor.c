/* The floor under a warm `ctxhooks search`, for benches/search.py: what any program that answers
 * from an index and sees every append must do at least, written as plainly as C allows.
 *
 *   floor              starts and exits (the cost of a process, through the same timer);
 *   floor PROJECTS     also lists every folder below PROJECTS, three levels down (a project's
 *                      folder, a session's folder, its subagents/), and looks at each entry once
 *                      (one fstatat, as the search's freshness check does: docs/search.md says
 *                      why one look per transcript is the least that sees every append).
 *
 * It opens no index, reads no file and prints one number (the bytes it saw), so the difference
 * between it and a search is the search's own work. Built statically (`cc -O2 -static`), as the
 * release binaries are linked on Linux. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>

static long long seen;

static void walk(int folder, int depth) {
    DIR *listing = fdopendir(folder);
    if (listing == NULL) {
        return;
    }
    struct dirent *entry;
    while ((entry = readdir(listing)) != NULL) {
        if (entry->d_name[0] == '.') {
            continue;
        }
        struct stat look;
        if (fstatat(folder, entry->d_name, &look, AT_SYMLINK_NOFOLLOW) != 0) {
            continue;
        }
        seen += look.st_size;
        if (S_ISDIR(look.st_mode) && depth < 3) {
            int below = openat(folder, entry->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
            if (below >= 0) {
                walk(below, depth + 1);
            }
        }
    }
    closedir(listing);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        return 0;
    }
    int projects = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (projects < 0) {
        perror(argv[1]);
        return 1;
    }
    walk(projects, 0);
    printf("%lld\n", seen);
    return 0;
}
