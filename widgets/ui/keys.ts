/**
 * Enter in a single-line field runs `action`, as a form's implicit submission would. Widgets do
 * not use <form> submission: a host's sandbox may lack allow-forms (ext-apps' example grants
 * "allow-scripts" alone), and then the browser drops the submit without an event.
 */
export function onEnter(action: () => void): (event: KeyboardEvent) => void {
  return (event) => {
    // Enter that ends an IME composition (Japanese, Chinese, Korean) picks a word; it is not a submit.
    if (event.key !== "Enter" || event.isComposing || event.keyCode === 229) return;
    event.preventDefault();
    action();
  };
}
