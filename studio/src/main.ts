import { mount } from 'svelte';
import App from './App.svelte';
import { session } from './lib/session.svelte';
import './styles/app.css';

// A request cancelled because its view went away (urql aborts the fetch of an operation nobody waits for) is not
// an error; anything else unhandled still reaches the console.
window.addEventListener('unhandledrejection', (event) => {
  if ((event.reason as { name?: string } | undefined)?.name === 'AbortError') event.preventDefault();
});

// Back from single sign-on with `#sso=CODE`: the session first, so the page opens signed in.
void session.completeSso().finally(() => mount(App, { target: document.getElementById('app')! }));
