// Copies the static files n8n loads next to the compiled nodes (icons, codex JSON) into dist/.
const { src, dest } = require('gulp');

function copyIcons() {
	return src(['nodes/**/*.{png,svg,json}', 'credentials/**/*.{png,svg}'], {
		base: '.',
		encoding: false,
	}).pipe(dest('dist'));
}

exports['build:icons'] = copyIcons;
