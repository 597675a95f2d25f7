// Data as JSON gives it (the service's answers, a delivery's body), handled so that keys such as
// `__proto__` or `constructor` stay data: one place for the transport, the operations and the trigger.
import type { IDataObject } from 'n8n-workflow';

/**
 * An object as JSON or a form parser makes it: its prototype is an `Object.prototype` (of any realm)
 * or null. Arrays, buffers, dates and class instances are not.
 */
export function isPlainObject(value: unknown): value is IDataObject {
	if (value === null || typeof value !== 'object') return false;
	const prototype = Object.getPrototypeOf(value) as object | null;
	return prototype === null || Object.getPrototypeOf(prototype) === null;
}

/** Sets `key` as an own field, also when it is `__proto__` (an assignment would set the prototype). */
export function setOwn(target: object, key: string, value: unknown): void {
	Object.defineProperty(target, key, {
		value,
		writable: true,
		enumerable: true,
		configurable: true,
	});
}
