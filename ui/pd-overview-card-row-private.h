/* pd-overview-card-row-private.h: an Overview card's parts, shared by its files
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * pd-overview-card-row.c builds the card and tells what it shows;
 * pd-overview-card-question.c the question it asks and its answers.
 */
#pragma once

#include <adwaita.h>

#include "pd-overview-card-row.h"
#include "pd-remote-source.h"

G_BEGIN_DECLS

struct _PdOverviewCardRow
{
  GtkWidget       parent_instance;

  PdOverviewCard *card;
  gulong          changed_id;
  PdRemoteRun    *shown_run;        /* (nullable) the endpoint's question shown */
  guint           shown_serial;     /* the question of a run in this window shown */
  gint64          question_at;      /* monotonic µs: when the question shown changed */
  gint64          moved_at;         /* monotonic µs: when it moved in the list */
  gint64          guard_usec;

  GtkWidget      *box;
  GtkWidget      *pie;
  GtkWidget      *failed_icon;      /* in the pie's place on a failed card */
  char           *need_whole;       /* (nullable) a failed card's reason, whole: tooltip and description */
  GtkWidget      *progress;
  GtkWidget      *title;
  GtkWidget      *origin;
  GtkWidget      *time;
  GtkWidget      *need;
  GtkWidget      *step;
  GtkWidget      *source_error;
  GtkWidget      *approval;
  GtkWidget      *approval_text;
  GtkWidget      *approval_command;
  GtkWidget      *approval_command_scroller;
  GtkWidget      *approval_unseen;
  GtkWidget      *approval_deadline;  /* a GtkInscription: its text changes every second */
  gint64          deadline_told;      /* the ten seconds its accessible label was told for; -1: none */
  guint           deadline_timer;   /* while a deadline is shown: its next second */
  GtkWidget      *deny;
  GtkWidget      *approve;
  GtkWidget      *open;
  GtkWidget      *row_name;
  char           *command_shown;    /* (nullable) the whole command, as pd_safe_text_approval() shows it */
  gint64          time_bucket;      /* what the time label says, as time_bucket() tells it; -1: not told */
  const char     *need_class;       /* (nullable) the need label's style class */
  char           *name_shown;       /* (nullable) the accessible name and description told */
  char           *description_shown;
  gboolean        command_cut;      /* the card shows only its start: Review… */
  GtkWidget      *review;           /* (nullable) the open Review dialog */
};
GtkWidget *_pd_card_plain_label     (const char *css_class,
                                     gboolean    wrap);
gboolean   _pd_card_set_label       (GtkWidget  *label,
                                     const char *text);
GtkWidget *_pd_card_mnemonic_button (const char *label);
char      *_pd_card_text            (const char *text);

void _pd_overview_card_row_answer            (PdOverviewCardRow *self,
                                              gboolean           approve);
void _pd_overview_card_row_open              (PdOverviewCardRow *self);
void _pd_overview_card_row_set_command       (PdOverviewCardRow *self,
                                              const char        *command);
void _pd_overview_card_row_remember_question (PdOverviewCardRow *self);
void _pd_overview_card_row_update_deadline   (PdOverviewCardRow *self);
void _pd_overview_card_row_close_review      (PdOverviewCardRow *self);
void _pd_overview_card_row_init_question     (PdOverviewCardRow *self);

G_END_DECLS
