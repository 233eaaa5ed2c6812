import { HELD_CODE_ELEMENT_ID } from '../api/page-data';

/**
 * A server-rendered page comes with its code's modulepreload links held in an inert `<template>`
 * (server/pages/), so its rows are painted before any module is fetched and compiled. The entry
 * script moves them into the head as it starts: the app's and the screen's chunks then load side by
 * side instead of one import after another.
 */
export function releaseHeldCode(doc: Document): void {
  const held = doc.getElementById(HELD_CODE_ELEMENT_ID);
  if (!(held instanceof HTMLTemplateElement)) return;
  doc.head.append(doc.importNode(held.content, true));
  held.remove();
}
