/** app.js, imported as text so `bun build --compile` embeds it. */
declare const text: string;
export default text;
