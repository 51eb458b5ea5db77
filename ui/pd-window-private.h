/* pd-window-private.h: what the parts of PdWindow share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * PdWindow is one type in several files, as GNOME Text Editor splits its
 * window; the main ones: pd-window.c (lifecycle, properties, the views'
 * bindings), pd-window-shown.c (the session shown, or the page in its
 * place), pd-window-source.c (opening the local database, the
 * endpoint or the demo), pd-window-runs.c (the run bar, the message entry
 * and plan mode) and pd-window-actions.c (the win.* actions).
 */
#pragma once

#include <adwaita.h>

#include "pd-checklist-view.h"
#include "pd-events-view.h"
#include "pd-history-view.h"
#include "pd-local-source.h"
#include "pd-multi-source.h"
#include "pd-notifier.h"
#include "pd-session-deleter.h"
#include "pd-now-view.h"
#include "pd-overview-view.h"
#include "pd-remote-source.h"
#include "pd-run-controller.h"
#include "pd-session-list.h"
#include "pd-source-sidebar.h"
#include "pd-source-list.h"
#include "pd-transcript-view.h"
#include "pd-window.h"

G_BEGIN_DECLS

struct _PdWindow
{
  AdwApplicationWindow parent_instance;

  GSettings           *settings;
  char                *database_path;
  char                *remote_url;
  char                *remote_token;
  gboolean             create_database;
  gboolean             with_endpoints;  /* the default database: the configured endpoints too */
  PdSource            *source;          /* what the session list reads: one source, or a
                                         * PdMultiSource over all of them */
  PdSourceList        *sources;         /* this computer's database first, then endpoints */
  gboolean             failed;
  gboolean             retrying;            /* Retry pressed, no answer yet */
  gboolean             said_no_keyring;     /* pd_window_say_token_not_kept() */
  char                *typed_token;         /* typed in the banner, kept once accepted */
  gboolean             token_for_run;       /* typed_token came with --remote: offered, not kept */
  char                *error_description;   /* the error page's, as plain text */

  PdDemo              *demo;
  GCancellable        *cancellable;
  PdRunController     *runs;
  PdNotifier          *notifier;
  PdSessionDeleter    *deleter;
  char                *pending_select;
  gboolean             focus_run_page;  /* a run started from New Session: its page takes the focus once shown */
  gulong               items_handler;
  guint                select_idle;
  guint                plan_mode_serial;

  PdSessionItem       *shown_item;
  char                *session_id;      /* of shown_item in its source, bound to the views */
  PdSource            *shown_source;    /* the source of shown_item, bound to the views */
  guint                endpoints_serial;
  guint                first_show_tick; /* the first session shows a frame after the list */
  gboolean             first_shown;
  guint                open_focus_tick;   /* the focus goes into an opened session's page */
  guint                open_focus_frames;
  GtkWidget           *open_focus_from;   /* (unowned) where the focus was; compared only */
  gboolean             open_focus_in_page; /* only a focus in the page is the person's */
  GtkWidget           *page_focus;        /* (weak) where the focus was in the page when F6 left it */
  GtkWidget           *search_from;       /* (weak) where the focus was as the search opened */
  gulong               read_at_start_handler; /* on the frame clock, until the list is drawn */
  gboolean             reading_at_start;      /* that read waits for the list or runs */
  gulong               running_handler;
  gulong               title_handler;
  gulong               ahead_handler;

  PdOverview          *overview;           /* over every member of sources */
  PdOverviewCard      *shown_card;         /* (nullable) the shown session's, followed for its question */
  gulong               shown_card_handler;
  gboolean             overview_shown;
  gboolean             overview_home_done; /* opened on the Overview once */

  /* Template widgets */
  AdwToastOverlay     *toast_overlay;
  GtkWidget           *announcer;      /* a status a toast's words are given to */
  AdwLeaflet          *leaflet;
  AdwViewSwitcherTitle *switcher_title;
  AdwStatusPage       *empty_state;
  AdwStatusPage       *error_page;
  GtkStack            *content_stack;
  AdwViewStack        *view_stack;
  PdSourceSidebar     *source_sidebar;
  PdSessionList       *session_list;
  PdNowView           *now_view;
  PdOverviewView      *overview_view;
  GtkBox              *transcript_slot;
  GtkBox              *events_slot;
  GtkBox              *history_slot;
  GtkStack            *now_stack;
  PdChecklistView     *checklist_view;
  PdTranscriptView    *transcript_view;
  PdEventsView        *events_view;
  PdHistoryView       *history_view;
  GtkButton           *error_button;
  GtkButton           *create_button;
  GtkToggleButton     *plan_mode_button;
  AdwViewSwitcherBar  *switcher_bar;
  GtkRevealer         *demo_banner;
  GtkRevealer         *connection_banner;
  GtkBox              *connection_row;
  GtkImage            *connection_icon;
  GtkLabel            *connection_label;
  GtkButton           *connection_retry;
  GtkBox              *token_box;
  GtkPasswordEntry    *token_entry;
  GtkButton           *error_retry;
  GtkRevealer         *run_bar;
  GtkLabel            *run_activity_label;
  GtkWidget           *run_notice_box;   /* the run's lasting notice, made in pd-window-runs.c */
  GtkLabel            *run_notice_label;
  GtkLabel            *run_text_label;
  GtkRevealer         *message_bar;
  GtkEntry            *message_entry;
  GMenu               *recent_section;
  GMenu               *session_section;
};

/* pd-window.c */
guint       _pd_window_poll_ms             (PdWindow        *self,
                                            gboolean         running);
const char *_pd_window_source_label        (PdWindow        *self);
const char *_pd_window_source_id           (PdWindow        *self);
const char *_pd_window_source_name         (PdWindow        *self);
void        _pd_window_show_error          (PdWindow        *self,
                                            const char      *title,
                                            const char      *description);
void        _pd_window_show_session_of     (PdWindow        *self,
                                            PdSessionItem   *item);
void        _pd_window_show_session_title  (PdWindow        *self,
                                            const char      *title);

/* pd-window-shown.c */
void        _pd_window_update_content      (PdWindow        *self);
void        _pd_window_on_now_plan_shown   (PdWindow        *self);

/* pd-window-sidebar.c */
void        _pd_window_sidebar_init        (PdWindow        *self);

/* pd-window-titles.c */
void        _pd_window_show_page_titles    (PdWindow        *self,
                                            const char      *title);
void        _pd_window_title_tooltip       (PdWindow        *self);
void        _pd_window_update_error_page   (PdWindow        *self);
gboolean    _pd_window_token_needed        (PdWindow        *self);
void        _pd_window_connect_endpoint_action (GtkWidget   *widget,
                                                const char  *action_name,
                                                GVariant    *parameter);
void        _pd_window_try_select_pending  (PdWindow        *self);
void        _pd_window_set_source          (PdWindow        *self,
                                            PdSource        *source);

/* The window's sources: this computer's database first, then each endpoint
 * (a window on one endpoint: that endpoint alone).  A GListModel of
 * PdSource; pd_source_list_get_id() and _get_name() say which is which. */
GListModel *_pd_window_get_sources         (PdWindow        *self);

/* pd-window-source.c */
void        _pd_window_start_retry         (PdWindow        *self);
void        _pd_window_show_retrying       (PdWindow        *self);
void        _pd_window_end_retry           (PdWindow        *self,
                                            gboolean         reached);
void        _pd_window_open_source         (PdWindow        *self);
PdLocalSource *_pd_window_get_local_source (PdWindow        *self);
void        _pd_window_sync_endpoints      (PdWindow        *self);
void        _pd_window_on_session_items_added (PdWindow     *self,
                                            guint            position,
                                            guint            removed,
                                            guint            added);
void        _pd_window_on_source_chosen    (PdWindow        *self);
gboolean    _pd_window_describe_search     (PdWindow        *self);
gboolean    _pd_window_token_from_pasted   (PdWindow        *self,
                                            const char      *endpoint,
                                            char           **token);
void        _pd_window_on_sources_changed  (PdWindow        *self);
void        _pd_window_note_remote_unsearched (PdWindow     *self);
void        _pd_window_on_search_counted   (PdWindow        *self,
                                            int              n);
/* pd-window-source-chosen.c: an endpoint chosen in the sidebar that does
 * not list, its page said of it. */
void        _pd_window_on_chosen_load_failed (PdWindow      *self,
                                              const GError  *error);
void        _pd_window_on_chosen_loaded    (PdWindow        *self);
void        _pd_window_stop_endpoints      (PdWindow        *self);
PdSource   *_pd_window_resolve_item        (PdWindow        *self,
                                            PdSessionItem   *item,
                                            char           **source_id);
void        _pd_window_show_on_endpoint    (PdWindow        *self,
                                            PdSource        *source,
                                            const char      *source_id);
void        _pd_window_follow_transcripts  (PdWindow        *self);
void        _pd_window_import_transcripts  (PdWindow        *self);

/* pd-window-overview.c */
void        _pd_window_overview_init       (PdWindow        *self);
void        _pd_window_overview_dispose    (PdWindow        *self);
void        _pd_window_overview_set_source (PdWindow        *self,
                                            PdSource        *source);
void        _pd_window_overview_set_runs   (PdWindow        *self,
                                            PdRunController *runs);
void        _pd_window_show_overview       (PdWindow        *self,
                                            gboolean         shown);
gboolean    _pd_window_nothing_listed      (PdWindow        *self);
gboolean    _pd_window_overview_update     (PdWindow        *self,
                                            PdSessionItem   *item);
void        _pd_window_overview_on_selection (PdWindow      *self);
gboolean    _pd_window_overview_open_for_keys (PdWindow     *self);
void        _pd_window_class_overview_init (GtkWidgetClass  *widget_class);
void        _pd_window_refuse_running_delete (PdWindow      *self,
                                            const char      *title);

/* pd-window-runs.c */
const char *_pd_window_shown_session_id    (PdWindow        *self);
void        _pd_window_update_run_ui       (PdWindow        *self);
void        _pd_window_fold_plan_toggle    (PdWindow        *self,
                                            gboolean         narrow);
void        _pd_window_refresh_plan_mode   (PdWindow        *self);
void        _pd_window_set_runs            (PdWindow        *self,
                                            PdRunController *runs);
void        _pd_window_class_runs_init     (GtkWidgetClass  *widget_class);

/* pd-window-actions.c */
void        _pd_window_update_recent       (PdWindow        *self);
void        _pd_window_class_actions_init  (GtkWidgetClass  *widget_class);
void        _pd_window_use_token_action    (GtkWidget       *widget,
                                            const char      *action_name,
                                            GVariant        *parameter);
void        _pd_window_check_typed_token   (PdWindow        *self);
void        _pd_window_forget_typed_token  (PdWindow        *self);
void        _pd_window_endpoint_taken      (PdWindow        *self);
gboolean    _pd_window_endpoint_had_refused (PdRemoteSource *remote);
const char *_pd_window_endpoint_refusal    (PdWindow        *self,
                                            PdRemoteSource  *remote);
void        _pd_window_typed_token_listed  (PdWindow        *self);
void        _pd_window_say_still_unreachable (PdWindow      *self);
void        _pd_window_actions_init        (PdWindow        *self);
void        _pd_window_read_agent_sessions (PdWindow        *self);
void        _pd_window_focus_opened        (PdWindow        *self);
void        _pd_window_stop_focus_opened   (PdWindow        *self);
void        _pd_window_focus_overview      (PdWindow        *self);

G_END_DECLS
