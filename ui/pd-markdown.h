/* pd-markdown.h: model-written markdown shown as plain text with styles
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Assistant answers and plan documents are markdown written by a model or
 * another agent: untrusted.  pd_markdown_render() turns it into plain text
 * (markers removed, list bullets and numbers kept, links as "text (url)")
 * and a PangoAttrList built in code for headings, emphasis and code.  No
 * part of the input ever becomes markup: "<b>" and "&amp;" stay as they are
 * written.  One pass over the lines, no recursion: time and memory grow
 * linearly with the input, whatever its nesting.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Deepest list indentation shown; deeper items are drawn at this depth. */
#define PD_MARKDOWN_MAX_DEPTH 6

char *pd_markdown_render    (const char     *markdown,
                             PangoAttrList **attrs);
void  pd_markdown_set_label (GtkLabel       *label,
                             const char     *markdown);

G_END_DECLS
