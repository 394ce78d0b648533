// Talking to the service: every call carries the session header, never a
// cookie, and every answer is JSON.

import { sessionHeaders } from './session.js';

export const API = '/api/v1';

export function query(params) {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v) search.set(k, v);
  const text = search.toString();
  return text ? `?${text}` : '';
}

// {status, body}; body is the parsed JSON answer.
export async function call(url, options = {}) {
  const response = await fetch(url, {
    credentials: 'omit',
    cache: 'no-store',
    ...options,
    headers: { ...sessionHeaders(), ...(options.headers || {}) },
  });
  let body = null;
  try {
    body = await response.json();
  } catch {
    body = { message: `the service answered ${response.status} without JSON` };
  }
  return { status: response.status, body };
}
