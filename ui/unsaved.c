/* unsaved.c — the unsaved-changes decision (see unsaved.h). */
#include "unsaved.h"

pt_unsaved_next pt_unsaved_before(bool dirty, bool answered)
{
    return dirty && !answered ? PT_UNSAVED_ASK : PT_UNSAVED_CONTINUE;
}

pt_unsaved_next pt_unsaved_after(pt_unsaved_answer answer, bool saved, bool needs_dialog)
{
    switch (answer) {
    case PT_ANSWER_DISCARD:
        return PT_UNSAVED_CONTINUE;
    case PT_ANSWER_SAVE:
        /* A failed save keeps the work: never go on and lose it. */
        return saved ? PT_UNSAVED_CONTINUE : needs_dialog ? PT_UNSAVED_AFTER_SAVE : PT_UNSAVED_STOP;
    case PT_ANSWER_CANCEL:
    default:
        return PT_UNSAVED_STOP;
    }
}
