// The package's main: the classes of package.json's `n8n` section, each named after its file as by n8n.
'use strict';

const { n8n } = require('./package.json');
for (const file of [...n8n.nodes, ...n8n.credentials]) {
	const name = file.split('/').pop().split('.')[0];
	exports[name] = require(`./${file}`)[name];
}
