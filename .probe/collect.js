(() => {
  const r = (x) => Math.round(x);
  const nav = performance.getEntriesByType('navigation')[0];
  const res = performance.getEntriesByType('resource').map((e) => e.name.replace(location.origin, '').slice(0, 60) + ' start=' + r(e.startTime) + ' end=' + r(e.responseEnd));
  const paints = performance.getEntriesByType('paint').map((p) => p.name + '=' + r(p.startTime));
  const marks = performance.getEntriesByType('mark').map((p) => p.name + '=' + r(p.startTime));
  return { html: 'resp=' + r(nav.responseEnd) + ' domInteractive=' + r(nav.domInteractive) + ' dcl=' + r(nav.domContentLoadedEventEnd), res, paints, marks, inDom: r(window.__rowInDom), row: r(window.__benchFirstRowMs), lt: window.__lt };
})()
