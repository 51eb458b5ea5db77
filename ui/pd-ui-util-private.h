/* pd-ui-util-private.h: small helpers the inspector views share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "pd-plan.h"
#include "pd-session-info.h"

G_BEGIN_DECLS

/* How much of anyone's text (a title) a toast quotes: its start names it,
 * and the rest of the sentence and the toast's button stay in view. */
#define PD_TOAST_TITLE_CHARS 40

/* How much of anyone's text a toast that wraps quotes (_pd_toast_quote()). */
#define PD_TOAST_QUOTE_CHARS 80

void        _pd_run_hold_application   (void);
void        _pd_run_release_application (void);
char       *_pd_format_local_time      (gint64              unix_usec);
char       *_pd_format_local_time_at   (gint64              unix_usec,
                                        GDateTime          *now);
GtkWidget  *_pd_row_box_new            (void);
int         _pd_list_box_focused_row   (GtkListBox         *list,
                                        gboolean           *on_last);
void        _pd_list_box_refocus_row   (GtkListBox         *list,
                                        int                 index,
                                        gboolean            on_last);
const char *_pd_step_status_icon_name  (PdPlanStepStatus    status,
                                        gboolean            run_stopped);
const char *_pd_step_status_text       (PdPlanStepStatus    status,
                                        gboolean            run_stopped);
const char *_pd_step_cancelled_icon_name (void);
const char *_pd_step_cancelled_text    (void);
gboolean    _pd_run_left_off           (PdSessionStatus     status,
                                        const char         *stopped);
const char *_pd_enum_label             (const char * const *labels,
                                        gsize               n_labels,
                                        const char         *context,
                                        guint               value);
const char *_pd_check_status_label     (PdPlanCheckStatus   status);
const char *_pd_event_type_label       (const char         *type);
const char *_pd_session_status_label   (PdSessionStatus     status);
const char *_pd_describe_tool          (const char         *tool);
void        _pd_name_drop_down         (GtkDropDown        *drop_down,
                                        const char         *name);
void        _pd_combo_row_choice_tooltip (AdwComboRow      *row);
void        _pd_tooltip_quiet_while_open (GtkWidget        *owner,
                                        GtkWidget          *popover);
void        _pd_popover_tooltips_quiet (GtkWidget          *root);
gboolean    _pd_search_may_return_to   (GtkWidget          *widget);
void        _pd_set_tooltip_lines      (GtkWidget          *widget,
                                        const char         *first,
                                        const char         *rest);
int         _pd_text_width             (GtkWidget          *widget,
                                        double              chars);
void        _pd_list_one_tab_stop      (GtkWidget          *list);
void        _pd_list_view_scroll_to_end (GtkWidget         *list);
void        _pd_take_tab               (GtkWidget          *widget,
                                        GtkPropagationPhase phase,
                                        GtkShortcutFunc     callback);
gboolean    _pd_list_leave             (GtkWidget          *list,
                                        GtkDirectionType    direction);
void        _pd_stack_tab_shown_only   (GtkStack           *stack);
void        _pd_view_stack_reader_shown_only (AdwViewStack   *stack);
void        _pd_stack_show_moving_focus (GtkStack          *stack,
                                         const char        *name);
void        _pd_status_pages_tab_to_controls (GtkWidget     *root);
void        _pd_status_page_plain_names      (AdwStatusPage *page);
void        _pd_name_shortcut_keys     (GtkWidget          *widget);
void        _pd_name_menus             (GtkWidget          *root,
                                        const char         *name);
void        _pd_widen_view_switcher_bar (AdwViewSwitcherBar *bar);
void        _pd_name_tooltip_buttons   (GtkWidget          *root);
void        _pd_name_mnemonic_buttons  (void);
void        _pd_wrap_button_labels     (GtkWidget          *box);
void        _pd_label_no_hyphens       (GtkWidget          *label);
void        _pd_session_heading_set    (GtkLabel           *label,
                                        const char         *title);
void        _pd_a11y_quiet_classes     (void);
void        _pd_a11y_name_switchers    (GtkWidget          *root);
void        _pd_inscription_fit_lines  (GtkInscription     *inscription);
void        _pd_inscription_limit_lines (GtkInscription    *inscription,
                                         guint              most);
void        _pd_label_unselect_on_leave (GtkWidget         *label);
char       *_pd_ltr_lines              (const char         *text);
GtkWidget  *_pd_unwrapped_scroller     (GtkWidget          *label);
GtkWidget  *_pd_plain_label            (const char         *text,
                                        const char         *css_class);
char       *_pd_file_chooser_take_path (GtkNativeDialog    *chooser,
                                        int                 response);
char       *_pd_accessible_text        (const char         *text);
void        _pd_accessible_set_text    (GtkWidget          *widget,
                                        const char         *label,
                                        const char         *description);
char       *_pd_isolated_line          (const char         *text);
char       *_pd_isolated_short         (const char         *text,
                                        guint               max_chars);
const char *_pd_session_delete_label  (gboolean            imported);
char       *_pd_run_ended_short_text  (PdSessionStatus     status,
                                        const char         *stopped,
                                        const char         *error,
                                        guint               max_chars);
char       *_pd_budget_name            (const char         *name,
                                        guint               max_chars);
char       *_pd_budget_amount          (const char         *name,
                                        gint64              observed,
                                        gint64              limit);
char       *_pd_toast_quote            (const char         *text);
GtkWidget  *_pd_list_box_roving_row    (GtkWidget          *row);
gboolean    _pd_list_box_refocus       (GtkWidget          *widget);
void        _pd_list_box_one_stop      (GtkListBox         *list);
void        _pd_toast_keep_above       (GtkWidget          *overlay,
                                        GtkWidget          *content);
void        _pd_toast_add              (GtkWidget          *where,
                                        AdwToast           *toast);
void        _pd_toast_add_text         (GtkWidget          *where,
                                        const char         *text);
void        _pd_toast_set_announcer    (GtkWidget          *overlay,
                                        GtkWidget          *announcer);
void        _pd_dialog_guard_responses (GtkWidget          *dialog,
                                        const char * const *responses);
void        _pd_dialog_arm_response_guard (GtkWidget       *dialog);
void        _pd_spinner_set_wanted     (GtkSpinner         *spinner,
                                        gboolean            wanted);
void        _pd_spinners_spin_when_shown (GtkWidget        *root);
void        _pd_label_speak_plain      (GtkLabel           *label);
void        _pd_labels_speak_plain     (GtkWidget          *root);
void        _pd_list_views_name        (GtkWidget          *root,
                                        const char         *name);
void        _pd_preferences_groups_name_lists (GtkWidget   *root);
void        _pd_preferences_group_name_list (AdwPreferencesGroup *group);
void        _pd_list_boxes_name        (GtkWidget          *root,
                                        const char         *name);
void        _pd_window_keep_role       (GtkWindow          *window);
void        _pd_images_speak           (GtkWidget          *root);
void        _pd_menu_buttons_return_focus (GtkWidget       *root);
void        _pd_message_dialog_responses_once (GtkWidget      *dialog);
void        _pd_scrollbars_speak       (void);
void        _pd_scrollbar_speak        (GtkWidget          *widget);
void        _pd_stack_speak            (GtkWidget          *widget);
void        _pd_stack_pages_speak      (GtkWidget          *root);
void        _pd_menu_set_name          (GtkWidget          *menu,
                                        const char         *name);
void        _pd_shortcuts_window_part_speak (GtkWidget     *widget);
void        _pd_toast_parts_quiet      (GtkWidget          *toast);
void        _pd_scroller_speak         (GtkWidget          *widget);
char       *_pd_without_mnemonic       (const char         *text);
char       *_pd_stack_page_spoken_name (GtkStack           *stack,
                                        GtkStackPage       *page);

G_END_DECLS
