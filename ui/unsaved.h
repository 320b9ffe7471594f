/* unsaved.h — the unsaved-changes decision shared by closing a window and opening another file
 * over it: whether to ask, and what to do with the answer. Plain C so it is unit-tested. */
#ifndef PT_UNSAVED_H
#define PT_UNSAVED_H

#include <stdbool.h>

typedef enum { PT_ANSWER_CANCEL, PT_ANSWER_DISCARD, PT_ANSWER_SAVE } pt_unsaved_answer;
typedef enum {
    PT_UNSAVED_STOP,      /* keep everything as it is */
    PT_UNSAVED_CONTINUE,  /* go on (close, open the other file) */
    PT_UNSAVED_ASK,       /* ask first */
    PT_UNSAVED_AFTER_SAVE /* go on once the Save As dialog has saved; stop if it is cancelled */
} pt_unsaved_next;

/* Before closing or opening: ask when there are unsaved edits (and not already answered). */
pt_unsaved_next pt_unsaved_before(bool dirty, bool answered);
/* After the prompt: `saved` tells whether a Save saved at once (a known path) or failed;
 * `needs_dialog` that it went to a Save As dialog instead. */
pt_unsaved_next pt_unsaved_after(pt_unsaved_answer answer, bool saved, bool needs_dialog);

#endif
