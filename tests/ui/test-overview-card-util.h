/* test-overview-card-util.h: what the Overview card test programs share.
 *
 * One card alone in a window (Alone), a card made from a session's info,
 * and finders for its widgets.  test-overview-card.c tries a card's texts,
 * answers and commands; test-overview-card-ended.c how a run ended;
 * test-overview-card-live.c its changes over time.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <string.h>

#include "pd-local-source.h"
#include "pd-overview-card-row.h"
#include "pd-overview-private.h"
#include "pd-overview-view.h"
#include "pd-remote-source.h"
#include "pd-plan-pie.h"
#include "pd-session-item.h"
#include "pd-ui-util-private.h"
#include "pd-test-a11y.h"
#include "pd-test-fixtures.h"
#include "pd-test-runs.h"

typedef struct
{
  GtkWidget *window;
  GtkWidget *row;
} Alone;

static inline gboolean
is_button (GtkWidget     *widget,
           gconstpointer  data)
{
  return GTK_IS_BUTTON (widget) && gtk_widget_get_mapped (widget) &&
         g_strcmp0 (gtk_button_get_label (GTK_BUTTON (widget)), data) == 0;
}

/* A text the card shows: a label's, or an inscription's (the texts that
 * change as its plan moves on). */
static inline const char *
shown_text (GtkWidget *widget)
{
  if (GTK_IS_LABEL (widget))
    return gtk_label_get_text (GTK_LABEL (widget));
  if (GTK_IS_INSCRIPTION (widget) && gtk_inscription_get_text (GTK_INSCRIPTION (widget)) != NULL)
    return gtk_inscription_get_text (GTK_INSCRIPTION (widget));
  return NULL;
}

static inline gboolean
label_contains (GtkWidget     *widget,
                gconstpointer  data)
{
  return shown_text (widget) != NULL && gtk_widget_get_visible (widget) && strstr (shown_text (widget), data) != NULL;
}

static inline PdOverviewCard *
card_new (const char *title,
          const char *agent,
          const char *source_name)
{
  g_autoptr(PdLocalSource) source = pd_local_source_new (":memory:", FALSE);
  PdOverviewCard *card = _pd_overview_card_new (PD_SOURCE (source), "20260402-96aca9fa885c03da29d4f8c5e78be75c");
  PdSessionInfo info = { 0 };

  info.id = (char *) "20260402-96aca9fa885c03da29d4f8c5e78be75c";
  info.task = (char *) title;
  info.source = (char *) agent;
  info.status = PD_SESSION_STATUS_RUNNING;
  info.updated_at = g_get_real_time ();
  info.plan_done = 1;
  info.plan_total = 3;
  _pd_overview_card_set_info (card, &info);
  _pd_overview_card_set_source_name (card, source_name);
  return card;
}

static inline gboolean
row_laid_out (gpointer data)
{
  Alone *alone = data;

  return gtk_widget_get_mapped (alone->row) && gtk_widget_get_width (alone->row) > 0;
}

static inline void
alone_show (Alone          *alone,
            PdOverviewCard *card,
            int             width)
{
  alone->window = gtk_window_new ();
  alone->row = pd_overview_card_row_new ();
  gtk_window_set_default_size (GTK_WINDOW (alone->window), width, 600);
  gtk_window_set_child (GTK_WINDOW (alone->window), alone->row);
  pd_overview_card_row_set_card (PD_OVERVIEW_CARD_ROW (alone->row), card);
  gtk_window_present (GTK_WINDOW (alone->window));
  pd_test_wait_until (row_laid_out, alone, "the card laid out");
}

static inline void
alone_close (Alone *alone)
{
  gtk_window_destroy (GTK_WINDOW (alone->window));
}
