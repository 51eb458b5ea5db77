/* pd-session-list-private.h: what the parts of PdSessionList share
 *
 * PdSessionList is one type in four files: pd-session-list.c (the search,
 * the selection, what the list says when empty), pd-session-list-pages.c
 * (the listing, read from the source in pages and merged into the model),
 * pd-session-list-menu.c (the row menu, its Rename and
 * Pin, and the clicks on rows) and pd-session-list-top.c (a list at its
 * top stays there as sessions come above).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-session-list.h"

G_BEGIN_DECLS

/* No full pass cut short by a refresh waits to go on. */
#define PD_SESSION_LIST_NO_OFFSET G_MAXUINT

struct _PdSessionList
{
  GtkWidget           parent_instance;

  PdSource           *source;
  gulong              changed_handler;
  PdSessionListModel *model;
  GtkFilterListModel *shown;          /* the model less the hidden sessions */
  GHashTable         *hidden;         /* ids of sessions deleted pending an Undo */
  GtkSingleSelection *selection;
  PdSessionItem      *kept;           /* the open session, left out by a search */
  gboolean            none_open;      /* no session open (the Overview): no row picked */
  guint               top_tick;       /* keeps the list at its top after rows came above */
  guint               top_frames;
  gboolean            top_on_map;     /* rows came above while hidden, the list at its top */
  gboolean            search_top;     /* a new search's pages go on: its results show from the top */
  GCancellable       *cancellable;
  gboolean            stale;          /* changed while a page was on its way: read the top after it */
  guint               generation;     /* of the newest pass */
  gboolean            tell;           /* a new search's count is to be told */
  guint               replies;        /* passes finished */
  guint               pass_offset;    /* of the page asked for next */
  gboolean            pass_full;      /* the pass reads to the end */
  guint               resume_offset;  /* where a full pass a refresh cut short goes on */
  gboolean            complete;       /* a full pass ended: the model lists everything */
  guint               next_tick;      /* waits for a frame before the next page */
  guint               next_timeout;   /* …or for the hidden list */
  gulong              map_handler;
  gboolean            loaded;
  gboolean            load_failed;    /* the first listing of this source failed */
  gboolean            merging;
  char               *query;
  gboolean            full_text;
  char               *found_elsewhere; /* where a search found what this source has not */
  guint               time_source;

  GCancellable       *reread;         /* the read of the open row on its way */
  char               *reread_next;    /* the row to read once more after it */
  guint               n_rereads;      /* reads of a shown row started */
  guint               rereads_out;    /* …and not answered yet */

  PdSessionItem      *menu_item;      /* the row the context menu is for */
  GtkWidget          *menu;

  /* Template widgets */
  GtkSearchBar       *search_bar;
  GtkSearchEntry     *search_entry;
  GtkWidget          *search_from;    /* (nullable) (weak) where the focus was as the search opened */
  GtkToggleButton    *full_text_toggle;
  GtkStack           *list_stack;
  GtkListView        *list_view;
  GtkLabel           *empty_label;
  GtkLabel           *note_label;
  GtkSpinner         *loading_spinner;
};

/* pd-session-list.c */
/* The session whose row has the keyboard focus (NULL: none), and the
 * focus put back on @id's row after a merge moved it. */
const char *_pd_session_list_focused_id    (PdSessionList  *self);
void     _pd_session_list_keep_focus       (PdSessionList  *self,
                                            const char     *id);
/* The position of @id in the list as shown (the selection's positions). */
gboolean _pd_session_list_find_shown       (PdSessionList  *self,
                                            const char     *id,
                                            guint          *position);
/* The session @id read again and its row updated, wherever it is in the
 * list (a refresh reads the top pages only); in pd-session-list-menu.c. */
void     _pd_session_list_reread_session   (PdSessionList  *self,
                                            const char     *id);
/* The read of the row on its way let go of: another source, or none. */
void     _pd_session_list_cancel_reread    (PdSessionList  *self);
/* For the tests: how many of those reads were started, and how many of
 * them are on their way (@out, nullable). */
guint    _pd_session_list_get_n_rereads    (PdSessionList  *self,
                                            guint          *out);
void     _pd_session_list_emit_activated   (PdSessionList  *self,
                                            PdSessionItem  *item);
/* ::load-failed: the source could not list or change sessions. */
void     _pd_session_list_emit_failed      (PdSessionList  *self,
                                            const GError   *error);

void     _pd_session_list_emit_counted     (PdSessionList  *self,
                                            gint            n);
void     _pd_session_list_notify_loaded    (PdSessionList  *self);
void     _pd_session_list_notify_selected  (PdSessionList  *self);
void     _pd_session_list_update_empty     (PdSessionList  *self);
void     _pd_session_list_update_autoselect (PdSessionList *self);
/* Tells a search's count @n to a screen reader; -1 tells nothing. */
void     _pd_session_list_tell_count       (PdSessionList  *self,
                                            gint            n);

/* pd-session-list-pages.c */
void     _pd_session_list_cancel_next      (PdSessionList  *self);
/* Another query or source: the listing is read whole again. */
void     _pd_session_list_restart          (PdSessionList  *self);

/* pd-session-list-top.c: a list at its top stays there as rows come above. */
void     _pd_session_list_init_top         (PdSessionList  *self);
void     _pd_session_list_dispose_top      (PdSessionList  *self);
/* Goes to the list's top once the rows merged are laid out. */
void     _pd_session_list_show_top         (PdSessionList  *self);

/* pd-session-list-menu.c */
void     _pd_session_list_class_init_menu  (GtkWidgetClass *widget_class);
void     _pd_session_list_init_menu        (PdSessionList  *self);
void     _pd_session_list_dispose_menu     (PdSessionList  *self);
void     _pd_session_list_popup_at         (PdSessionList  *self,
                                            double          x,
                                            double          y);

G_END_DECLS
