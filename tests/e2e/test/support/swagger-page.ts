import type { Page } from 'playwright-core';

/** What the Swagger UI shows after "Execute": the status cell and the response body. */
export interface ShownResponse {
  readonly status: number;
  readonly body: unknown;
}

/**
 * Drives `/docs` as a person does: Authorize, enter a value in one security scheme's field, apply,
 * close; then expand POST /invoke, "Try it out" (the example body `{"query":"hello"}`), "Execute",
 * and read the live response. Every step waits for the element it needs, never for a timer.
 */
export async function tryInvoke(
  page: Page,
  docsUrl: string,
  scheme: 'APIKeyHeader' | 'BearerAuth',
  value: string,
): Promise<ShownResponse> {
  // Each step waits for its element; this only catches one that never comes (a page of a few
  // seconds alone can take far longer on a loaded 2-core machine).
  page.setDefaultTimeout(120_000);
  await page.goto(docsUrl);
  await page.locator('.auth-wrapper .btn.authorize').click();
  const container = page.locator('.modal-ux .auth-container').filter({ hasText: scheme });
  await container.locator('input').fill(value);
  await container.getByRole('button', { name: 'Apply credentials' }).click();
  // Once applied, the scheme says "Authorized" and offers "Logout" (aria-label "Remove authorization").
  await container.getByRole('button', { name: 'Remove authorization' }).waitFor();
  await container.getByRole('button', { name: 'Close' }).click();
  await page.locator('.modal-ux').waitFor({ state: 'detached' });

  const operation = page.locator('#operations-default-invoke');
  await operation.locator('.opblock-summary').click();
  await operation.getByRole('button', { name: 'Try it out' }).click();
  await operation.getByRole('button', { name: 'Execute' }).click();
  const live = operation.locator('.live-responses-table .response');
  await live.first().waitFor();
  const status = Number((await live.locator('.response-col_status').first().innerText()).trim());
  const text = await live.locator('.response-col_description .highlight-code pre').first().innerText();
  return { status, body: JSON.parse(text) };
}
