// The package's main, for code that requires it by name: the classes package.json's `n8n` section lists
// (n8n itself reads that section), each named as n8n names it, after its file.
'use strict';

const { n8n } = require('./package.json');

for (const file of [...n8n.nodes, ...n8n.credentials]) {
	const name = file.split('/').pop().split('.')[0];
	exports[name] = require(`./${file}`)[name];
}
