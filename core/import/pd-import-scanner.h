/* pd-import-scanner.h: finds other agents' transcripts and reads them.
 *
 * The default folders are each agent's own: ~/.claude/projects (or
 * $CLAUDE_CONFIG_DIR/projects), ~/.codex/sessions and archived_sessions (or
 * under $CODEX_HOME), ~/.local/share/opencode (its storage/ tree and
 * opencode.db), ~/.qwen/projects (Qwen Code), ~/.gemini/tmp (Gemini CLI),
 * the task folders of the Cline, Roo Code and Kilo Code extensions in the
 * editors' global storage, and ~/.local/share/kilo (Kilo Code's CLI).  Each can be replaced, for tests or a copied tree.
 *
 * pd_import_read_path() takes any file or folder and recognises the format
 * from the content, not the name.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "pd-imported-session.h"
#include "pd-import-skip.h"

G_BEGIN_DECLS

#define PD_TYPE_IMPORT_SCANNER (pd_import_scanner_get_type ())
G_DECLARE_FINAL_TYPE (PdImportScanner, pd_import_scanner, PD, IMPORT_SCANNER, GObject)

PdImportScanner *pd_import_scanner_new            (void);
/* NULL restores the default; a folder that does not exist is skipped. */
void             pd_import_scanner_set_claude_dir (PdImportScanner  *self,
                                                   const char       *dir);
void             pd_import_scanner_set_codex_dir  (PdImportScanner  *self,
                                                   const char       *dir);
void             pd_import_scanner_set_opencode_dir (PdImportScanner *self,
                                                     const char      *dir);
void             pd_import_scanner_set_qwen_dir   (PdImportScanner  *self,
                                                   const char       *dir);
void             pd_import_scanner_set_gemini_dir (PdImportScanner  *self,
                                                   const char       *dir);
/* The VS Code global storage folder (…/User/globalStorage) whose Cline, Roo
 * Code and Kilo Code task folders are read, or one extension's own folder;
 * NULL: every editor's under $XDG_CONFIG_HOME (Code, Code - OSS, VSCodium,
 * Cursor, …). */
void             pd_import_scanner_set_vscode_dir (PdImportScanner  *self,
                                                   const char       *dir);
/* Kilo Code's CLI data folder (its kilo.db, OpenCode's layout). */
void             pd_import_scanner_set_kilo_dir   (PdImportScanner  *self,
                                                   const char       *dir);
const char      *pd_import_scanner_get_claude_dir (PdImportScanner  *self);
const char      *pd_import_scanner_get_codex_dir  (PdImportScanner  *self);
const char      *pd_import_scanner_get_opencode_dir (PdImportScanner *self);
const char      *pd_import_scanner_get_qwen_dir   (PdImportScanner  *self);
const char      *pd_import_scanner_get_gemini_dir (PdImportScanner  *self);
/* Every folder the scanner reads, in order (the ones that do not exist
 * are passed over when reading). */
GStrv            pd_import_scanner_dup_roots      (PdImportScanner  *self);

/* Returns: (transfer full) (element-type PdImportedSession) */
GPtrArray       *pd_import_scanner_scan           (PdImportScanner  *self,
                                                   GCancellable     *cancellable,
                                                   GError          **error);
/* The same; every file passed over (not a regular file, a symbolic link,
 * unreadable, of no known agent) is appended to @skipped (nullable,
 * element-type PdImportSkip). */
GPtrArray       *pd_import_scanner_scan_full      (PdImportScanner  *self,
                                                   GPtrArray        *skipped,
                                                   GCancellable     *cancellable,
                                                   GError          **error);
void             pd_import_scanner_scan_async     (PdImportScanner     *self,
                                                   GCancellable        *cancellable,
                                                   GAsyncReadyCallback  callback,
                                                   gpointer             user_data);
GPtrArray       *pd_import_scanner_scan_finish    (PdImportScanner  *self,
                                                   GAsyncResult     *result,
                                                   GError          **error);

/* A transcript file, an opencode.db, or a folder laid out like an agent's
 * own.  Files of no known format are skipped; an error only when @path
 * cannot be read at all.
 * Returns: (transfer full) (element-type PdImportedSession) */
GPtrArray       *pd_import_read_path              (const char       *path,
                                                   GCancellable     *cancellable,
                                                   GError          **error);
/* The same, with the files passed over inside a folder appended to
 * @skipped (nullable, element-type PdImportSkip).  A path that is itself
 * not a file or folder (a FIFO) is an error. */
GPtrArray       *pd_import_read_path_full         (const char       *path,
                                                   GPtrArray        *skipped,
                                                   GCancellable     *cancellable,
                                                   GError          **error);

G_END_DECLS
