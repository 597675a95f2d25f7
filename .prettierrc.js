// Formatting settings of n8n's community-node starter (n8n-io/n8n-nodes-starter), so the code reads
// like every other n8n node. `npm run format` applies them, `npm run format:check` checks them.
module.exports = {
	semi: true,
	trailingComma: 'all',
	bracketSpacing: true,
	useTabs: true,
	tabWidth: 2,
	arrowParens: 'always',
	singleQuote: true,
	quoteProps: 'as-needed',
	endOfLine: 'lf',
	printWidth: 100,
};
