import { render } from 'preact'; render(<p>hi</p>, document.getElementById('app')!);
