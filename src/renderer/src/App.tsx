export function App() {
  return <div>Berth</div>
}
