/* randbot: a random mover in C (libc only) for every game of the arena.
 * It knows no rules: it remembers the last `legal` line and answers one of its moves.
 * Build: make -C sample_bots   Run: sample_bots/c/randbot [seed] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static char line[1 << 20], legal[1 << 20]; /* SPEC.md: lines are at most 1 MiB */

int main(int argc, char **argv) {
    srand(argc > 1 ? (unsigned)atoi(argv[1]) : (unsigned)time(NULL));
    setvbuf(stdout, NULL, _IOLBF, 0); /* flush after every line */
    legal[0] = '\0';
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (strcmp(line, "ugi") == 0) {
            printf("id name randbot-c\nid author arena sample bots\nugiok\n");
        } else if (strcmp(line, "isready") == 0) {
            printf("readyok\n");
        } else if (strncmp(line, "legal ", 6) == 0) {
            strcpy(legal, line + 6);
        } else if (strncmp(line, "go", 2) == 0 && (line[2] == ' ' || line[2] == '\0')) {
            int infinite = strstr(line, "infinite") != NULL, count = 0;
            char *moves[4096], *tok;
            for (tok = strtok(legal, " "); tok && count < 4096; tok = strtok(NULL, " "))
                moves[count++] = tok;
            while (infinite && fgets(line, sizeof line, stdin)) { /* wait for stop */
                if (strncmp(line, "stop", 4) == 0) break;
                if (strncmp(line, "isready", 7) == 0) printf("readyok\n");
                if (strncmp(line, "quit", 4) == 0) return 0;
            }
            printf("bestmove %s\n", count ? moves[rand() % count] : "(none)");
            legal[0] = '\0';
        } else if (strcmp(line, "quit") == 0) {
            return 0;
        }
    }
    return 0;
}
