/**
 * Save text as a file from an extension page: a Blob behind a temporary <a download>, which
 * needs no "downloads" permission.
 * @param {{filename: string, media_type: string, content: string}} file
 */
export function downloadText(file) {
  const blob = new Blob([file.content], { type: file.media_type || "text/plain" });
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = file.filename;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
