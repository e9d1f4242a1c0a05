import { describe, expect, it } from 'vitest';
import { decodeEntities, fieldValue, findForm, parseForms } from './html-forms';

const SIGN_IN = `<!doctype html>
<html><head><title>Sign in</title></head><body>
<!-- <form id="login" action="/wrong"></form> -->
<form id="login" method="POST" action="/oauth/interaction/Ab&amp;1/login">
  <input type="hidden" name="csrf" value="t0k&#x2F;en&quot;">
  <label>User <input name="username" autocomplete="username"></label>
  <input type=password name=password>
  <input type="checkbox" name="remember">
  <input type="checkbox" name="agree" value="yes" checked>
  <input type="submit" value="Sign in">
</form>
</body></html>`;

const CONSENT = `<form id='consent' method='post' action='/oauth/interaction/xyz/confirm'>
  <input type='hidden' name='csrf' value='c1' />
  <button type="submit" name="decision" value="approve">Allow</button>
</form>
<form id="deny" method="post" action="/oauth/interaction/xyz/abort"><input type="hidden" name="csrf" value="c1"><button>Deny</button></form>`;

describe(parseForms, () => {
  it('reads the sign-in form: id, method, decoded action, hidden csrf and the named inputs', () => {
    const form = findForm(SIGN_IN, 'login');
    expect(form).toMatchObject({ id: 'login', method: 'post', action: '/oauth/interaction/Ab&1/login' });
    expect(form?.fields).toEqual([
      { name: 'csrf', value: 't0k/en"', type: 'hidden' },
      { name: 'username', value: '', type: 'text' },
      { name: 'password', value: '', type: 'password' },
      { name: 'agree', value: 'yes', type: 'checkbox' },
    ]);
    expect(form?.submitters).toEqual([]);
  });

  it('ignores forms inside comments', () => {
    expect(parseForms(SIGN_IN)).toHaveLength(1);
  });

  it('reads single-quoted attributes and named submit buttons of the consent and deny forms', () => {
    const forms = parseForms(CONSENT);
    expect(forms.map((form) => form.id)).toEqual(['consent', 'deny']);
    expect(forms[0]?.submitters).toEqual([{ name: 'decision', value: 'approve', type: 'submit' }]);
    expect(forms[1]?.submitters).toEqual([]);
    expect(fieldValue(forms[1] ?? { method: 'get', fields: [], submitters: [] }, 'csrf')).toBe('c1');
  });

  it('defaults the method to get and leaves a missing action undefined', () => {
    const [form] = parseForms('<form id="f"><textarea name="note">\nline &lt;1&gt;</textarea><input name="x" disabled></form>');
    expect(form).toEqual({ id: 'f', method: 'get', fields: [{ name: 'note', value: 'line <1>', type: 'textarea' }], submitters: [] });
  });
});

describe(decodeEntities, () => {
  it('decodes named, decimal and hex references and leaves unknown ones alone', () => {
    expect(decodeEntities('&lt;a&gt; &amp;&#39;&#x27; &unknown; &#99999999;')).toBe("<a> &'' &unknown; &#99999999;");
  });
});
